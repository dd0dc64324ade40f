import { Box, Text } from 'ink';
import { useRef } from 'react';
import { fitColumns, layoutRow, type ColumnSpec } from '../core/fit-columns.ts';
import { windowStart } from '../core/move-cursor.ts';
import { terminalText } from '../../util/index.ts';

export interface Column<T> extends ColumnSpec {
  cell(row: T): string;
}

export interface TableProps<T> {
  columns: Column<T>[];
  rows: readonly T[];
  /** Highlighted row, or undefined for a read-only table. */
  selected?: number;
  /** Rows shown at once (the header and the position line come on top). */
  height: number;
  width: number;
  /** Shown instead of rows when there are none. */
  empty: string;
  /** Dims rows that are no longer live (revoked keys, suspended accounts). */
  dim?(row: T): boolean;
}

/** A fixed-width text table that scrolls to keep the selected row in view. */
export function Table<T>({ columns, rows, selected, height, width, empty, dim }: TableProps<T>) {
  // Cells hold what clients wrote (prompts, models): never let a control character reach the terminal.
  const cells = rows.map((row) => columns.map((c) => terminalText(c.cell(row))));
  const widths = fitColumns(columns, cells, width - 2);
  const visible = Math.max(1, height);
  const start = useRef(0);
  start.current = windowStart(selected ?? 0, rows.length, visible, start.current);
  const shown = rows.slice(start.current, start.current + visible);
  return (
    <Box flexDirection="column">
      {/* Cut at the edge as the rows are: a wrapped header pushed its end under it, where a row belongs. */}
      <Text bold color="cyan" wrap="truncate">
        {'  ' + layoutRow(columns.map((c) => c.header), widths, columns)}
      </Text>
      {rows.length === 0 ? <Text dimColor>{'  ' + empty}</Text> : null}
      {shown.map((row, i) => {
        const at = start.current + i;
        const isSelected = at === selected;
        const line = (isSelected ? '› ' : '  ') + layoutRow(cells[at], widths, columns);
        return (
          <Text key={at} inverse={isSelected} dimColor={!isSelected && dim?.(row) === true} wrap="truncate">
            {line}
          </Text>
        );
      })}
      {rows.length > visible ? (
        <Text dimColor>{`  rows ${start.current + 1}–${start.current + shown.length} of ${rows.length}`}</Text>
      ) : null}
    </Box>
  );
}
