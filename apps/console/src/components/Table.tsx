import type { ReactNode } from 'react';

/**
 * A data table as every screen draws it: a caption (for screen readers unless `visibleCaption`),
 * one header row of column names (a falsy entry is a column the caller's role does not get), the
 * rows, and around it the wrapper that scrolls a wide table instead of the page. A wrapper that may
 * scroll for real is a named region the keyboard can reach (axe: scrollable-region-focusable).
 */
export function Table({
  caption,
  columns,
  children,
  visibleCaption = false,
  wrap = true,
  region,
  className,
  testId,
}: {
  caption: ReactNode;
  columns: (string | false | null | undefined)[];
  children: ReactNode;
  visibleCaption?: boolean;
  /** false: the table alone (it sits inside something that already scrolls). */
  wrap?: boolean;
  /** The name of a focusable scrolling region around the table. */
  region?: string;
  className?: string;
  testId?: string;
}) {
  const table = (
    <table className={className} data-testid={testId}>
      <caption className={visibleCaption ? undefined : 'sr-only'}>{caption}</caption>
      <thead>
        <tr>
          {columns.filter(Boolean).map((c) => (
            <th key={c as string} scope="col">
              {c}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
  if (!wrap) return table;
  return region ? (
    <div className="table-wrap" tabIndex={0} role="region" aria-label={region}>
      {table}
    </div>
  ) : (
    <div className="table-wrap">{table}</div>
  );
}
