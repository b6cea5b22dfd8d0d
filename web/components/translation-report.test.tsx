import { render, screen } from '@testing-library/react';
import { TranslationDetails, TranslationSummary } from './translation-report';

const report = {
  dropped: ['generationConfig.topK', 'generationConfig.thinkingConfig'],
  adjusted: ['max_tokens=64000->8192'],
};

describe('the translation report', () => {
  it('lists every dropped and adjusted field in full', () => {
    render(<TranslationDetails report={report} />);
    const details = screen.getByLabelText('Translation');
    expect(details).toHaveTextContent('generationConfig.topK, generationConfig.thinkingConfig');
    expect(details).toHaveTextContent('max_tokens=64000->8192');
  });

  it('counts them in a table cell, with the list as its name and title', () => {
    render(<TranslationSummary report={report} />);
    const summary = screen.getByLabelText(/^Translation:/);
    expect(summary).toHaveTextContent('2 dropped · 1 adjusted');
    expect(summary).toHaveAttribute(
      'title',
      'Dropped: generationConfig.topK, generationConfig.thinkingConfig. Adjusted: max_tokens=64000->8192',
    );
  });

  it('shows nothing when nothing was dropped or changed', () => {
    const { container } = render(
      <>
        <TranslationDetails report={null} />
        <TranslationSummary report={{ dropped: [], adjusted: [] }} />
      </>,
    );
    expect(container).toBeEmptyDOMElement();
  });
});
