// Reading kafka-consumer-groups.sh's tables, the oracle of the consumer-group tests.

export interface ToolGroupState {
  state: string;
  members: number;
}

export interface ToolLagRow {
  group: string;
  topic: string;
  partition: number;
  /** CURRENT-OFFSET; null for "-" (no commit). */
  current: number | null;
  end: number;
  lag: number;
}

const rowsAfterHeader = (text: string, header: RegExp) => {
  const rows: string[][] = [];
  let inTable = false;
  for (const line of text.split('\n')) {
    if (header.test(line)) inTable = true;
    else if (line.trim() === '') inTable = false;
    else if (inTable) rows.push(line.trim().split(/\s+/));
  }
  return rows;
};

/** `--describe --state`: GROUP COORDINATOR (ID) ASSIGNMENT-STRATEGY STATE #MEMBERS; the strategy is blank for an Empty group, so the last two columns are read. */
export function parseDescribeState(text: string): Map<string, ToolGroupState> {
  return new Map(rowsAfterHeader(text, /^GROUP\s+COORDINATOR/).map((cols) => [cols[0]!, { state: cols.at(-2)!, members: Number(cols.at(-1)) }]));
}

/** `--describe`: GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST CLIENT-ID. */
export function lagRows(text: string): ToolLagRow[] {
  return rowsAfterHeader(text, /^GROUP\s+TOPIC\s+PARTITION/).map((c) => ({
    group: c[0]!,
    topic: c[1]!,
    partition: Number(c[2]),
    current: c[3] === '-' ? null : Number(c[3]),
    end: Number(c[4]),
    lag: c[5] === '-' ? Number(c[4]) : Number(c[5]),
  }));
}

/** How our findings name a group's state (lib/diagnose/group-text.ts), from the tool's columns. */
export function groupReport(protocol: string, g: ToolGroupState): string {
  return `${protocol} protocol, ${g.state}, ${g.members} member${g.members === 1 ? '' : 's'}`;
}
