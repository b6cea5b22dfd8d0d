import { render, screen } from '@testing-library/react';
import { ContextMeter } from './context-meter';

describe('ContextMeter', () => {
  it('says when the prompt is larger than the model’s context', () => {
    render(<ContextMeter tokens={5000} contextLength={4096} />);
    expect(
      screen.getByText('≈5,000 / 4K prompt tokens (estimate): more than the model’s context'),
    ).toBeInTheDocument();
  });

  it('shows the count alone when the catalog gives no context length', () => {
    render(<ContextMeter tokens={12} contextLength={null} />);
    expect(screen.getByText('≈12 prompt tokens (estimate)')).toBeInTheDocument();
    expect(screen.queryByRole('meter')).not.toBeInTheDocument();
  });
});
