import { Button } from '../../../components/button';
import { TextField } from '../../../components/text-field';

/** A key's expiry: a local date and time, or empty for none (with a button that empties it). */
export function ExpiryField({
  value,
  onChange,
  error,
}: {
  value: string;
  onChange(value: string): void;
  error: string | undefined;
}) {
  return (
    <div className="flex flex-col items-start gap-1">
      <TextField
        className="w-full"
        label="Expires"
        type="datetime-local"
        value={value}
        onChange={(event) => onChange(event.target.value)}
        hint="Your local time. Leave it empty for a key that never expires."
        error={error}
      />
      {value !== '' && (
        <Button variant="secondary" size="small" onClick={() => onChange('')}>
          No expiry
        </Button>
      )}
    </div>
  );
}
