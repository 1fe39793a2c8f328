// The console's lists: a table that scrolls on its own on narrow screens, with column headers (and a
// caption for screen readers where the page's heading does not say what the rows are).
import type { ComponentChildren } from 'preact';

/** The header of a column of row buttons: named for screen readers, blank on screen. */
export const ACTIONS_COLUMN = <span class="visually-hidden">Actions</span>;

export function DataTable({ caption, columns, children }: { caption?: string; columns: readonly ComponentChildren[]; children: ComponentChildren }) {
  return (
    <div class="table-wrap">
      <table>
        {caption !== undefined ? <caption class="visually-hidden">{caption}</caption> : null}
        <thead><tr>{columns.map((column, i) => <th key={i} scope="col">{column}</th>)}</tr></thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
