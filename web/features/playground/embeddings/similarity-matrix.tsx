/**
 * The inputs' cosine similarities as a table, one row and one column per input; the cells are
 * shaded by value so alike pairs stand out, and the number is always written (not colour alone).
 */
import { formatSimilarity, similarityMatrix } from './similarity';

/** A cell's background: stronger for a higher similarity; none below zero. */
function shadeOf(value: number | null): string {
  if (value === null || value <= 0) return 'transparent';
  return `rgb(14 165 233 / ${Math.round(value * 35)}%)`;
}

export function SimilarityMatrix({ vectors }: { vectors: number[][] }) {
  const matrix = similarityMatrix(vectors);
  return (
    <div className="overflow-x-auto">
      <table className="border-collapse text-xs">
        <caption className="mb-1 text-left font-medium text-zinc-600 dark:text-zinc-400">
          Cosine similarity (1 = same direction)
        </caption>
        <thead>
          <tr>
            <td />
            {matrix.map((_, column) => (
              <th key={column} scope="col" className="px-2 py-1 font-medium">
                Input {column + 1}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {matrix.map((row, rowIndex) => (
            <tr key={rowIndex}>
              <th scope="row" className="px-2 py-1 text-left font-medium whitespace-nowrap">
                Input {rowIndex + 1}
              </th>
              {row.map((value, column) => (
                <td
                  key={column}
                  className="border border-zinc-200 px-2 py-1 text-right font-mono tabular-nums dark:border-zinc-800"
                  style={{ backgroundColor: shadeOf(value) }}
                >
                  {formatSimilarity(value)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
