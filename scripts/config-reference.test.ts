import { readFile } from 'node:fs/promises';
import { gatewayEnvironmentSchema } from '../gateway/config';
import { workbenchVariableSchemas } from '../server/core/config';
import {
  configurationDocPath,
  gatewayRows,
  renderConfigurationDoc,
  workbenchRows,
} from './config-reference';

describe('the configuration reference', () => {
  it('is what `npm run docs` generates from the schemas (run it after changing one)', async () => {
    const committed = await readFile(configurationDocPath, 'utf8');
    expect(await renderConfigurationDoc(committed)).toBe(committed);
  });

  it('lists every variable each schema reads, each with a meaning', () => {
    expect(gatewayRows().map((row) => row.name)).toEqual(
      Object.keys(gatewayEnvironmentSchema.shape),
    );
    expect(workbenchRows().map((row) => row.name)).toEqual(Object.keys(workbenchVariableSchemas));
    for (const row of [...gatewayRows(), ...workbenchRows()]) expect(row.meaning).not.toBe('');
  });
});
