/**
 * "Get code": which request the code dialog shows. `undefined` is a closed dialog; null an open
 * one with nothing to build from yet (no key profile or no model).
 */
import { useState } from 'react';
import { codeSubjectOf, codeSubjectOfRun, type CodeSubjectInput } from './code-subject';
import type { CodeSubject } from './components/code-dialog';
import type { RunRecord } from './playground-types';

export function useCodeExport(current: () => CodeSubjectInput) {
  const [subject, setSubject] = useState<CodeSubject | null | undefined>(undefined);
  return {
    open: subject !== undefined,
    subject: subject ?? null,
    /** The request as it would be sent now (or the last one sent, with nothing new typed). */
    showCurrent: () => setSubject(codeSubjectOf(current())),
    /** The request a past run sent. */
    showRun: (run: RunRecord) => setSubject(codeSubjectOfRun(run)),
    close: () => setSubject(undefined),
  };
}

export type CodeExport = ReturnType<typeof useCodeExport>;
