import { Component, type ReactNode } from 'react';
import { ErrorPanel } from '../components/error-panel';

interface PageErrorBoundaryProps {
  /** The page's path: going to another page clears the error. */
  resetKey: string;
  children: ReactNode;
}

interface PageErrorBoundaryState {
  error: unknown;
  resetKey: string;
}

/**
 * A page that fails to render, or whose code fails to load (a chunk gone after a new build),
 * says so inside the shell instead of leaving a blank window; the navigation still works.
 */
export class PageErrorBoundary extends Component<PageErrorBoundaryProps, PageErrorBoundaryState> {
  override state: PageErrorBoundaryState = { error: null, resetKey: this.props.resetKey };

  static getDerivedStateFromError(error: unknown): Partial<PageErrorBoundaryState> {
    return { error: error ?? new Error('The page failed without saying why.') };
  }

  static getDerivedStateFromProps(
    props: PageErrorBoundaryProps,
    state: PageErrorBoundaryState,
  ): Partial<PageErrorBoundaryState> | null {
    return props.resetKey === state.resetKey ? null : { error: null, resetKey: props.resetKey };
  }

  override render() {
    if (this.state.error === null) return this.props.children;
    return (
      <div className="mx-auto w-full max-w-screen-2xl px-3 py-4 sm:px-6">
        <ErrorPanel
          what="Showing this page"
          error={this.state.error}
          onRetry={() => window.location.reload()}
        />
      </div>
    );
  }
}
