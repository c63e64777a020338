// Placeholder until the diagnosis work lands.
export async function run(_argv: string[]): Promise<number> {
  console.error('not implemented yet');
  return 2;
}
