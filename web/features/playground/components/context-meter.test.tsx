import { render, screen } from '@testing-library/react';
import { ContextMeter } from './context-meter';

describe('ContextMeter', () => {
  it('says when the prompt is larger than the model’s context', () => {
    render(<ContextMeter tokens={5000} counted={false} contextLength={4096} />);
    expect(
      screen.getByText('≈5,000 / 4K prompt tokens (estimate): more than the model’s context'),
    ).toBeInTheDocument();
  });

  it('shows the count alone when the catalog gives no context length', () => {
    render(<ContextMeter tokens={12} counted={false} contextLength={null} />);
    expect(screen.getByText('≈12 prompt tokens (estimate)')).toBeInTheDocument();
    expect(screen.queryByRole('meter')).not.toBeInTheDocument();
  });

  it('drops the ≈ and the word estimate when the gateway counted', () => {
    render(<ContextMeter tokens={30005} counted contextLength={32768} />);
    expect(screen.getByText('30,005 / 32K prompt tokens')).toBeInTheDocument();
    expect(screen.getByRole('meter', { name: 'Context used' })).toHaveAttribute('value', '30005');
  });
});
