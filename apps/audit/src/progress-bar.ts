/** A progress line on a terminal (redrawn in place), or one line every few seconds in a log. */
export const progressReporter = (label: string, stream: NodeJS.WriteStream = process.stderr) => {
  let lastLine = 0;
  const started = Date.now();
  const averageRate = (done: number): number => done / Math.max(0.001, (Date.now() - started) / 1000);
  return (done: number, total: number | null, etaSeconds: number | null = null, final = false,
    perSecond = averageRate(done)): void => {
    const now = Date.now();
    if (!final && !stream.isTTY && now - lastLine < 2000) return;
    if (!final && stream.isTTY && now - lastLine < 100) return;
    lastLine = now;
    const share = total && total > 0 ? Math.min(1, done / total) : null;
    const width = 30;
    const bar = share === null ? '' : `[${'#'.repeat(Math.round(share * width)).padEnd(width, '.')}] ${(share * 100).toFixed(1).padStart(5)}% `;
    const eta = etaSeconds === null ? '' : ` eta ${etaSeconds < 1 ? '<1' : Math.round(etaSeconds)}s`;
    const line = `${label} ${bar}${done}${total === null ? '' : `/${total}`} events, ${Math.round(perSecond)} events/s${eta}`;
    stream.write(stream.isTTY ? `\r${line}\x1b[K${final ? '\n' : ''}` : `${line}\n`);
  };
};
