/** "in 23 h", "in 5 min": how long is left before a deadline (an approval's). */
export function timeLeft(deadline: string, now = Date.now()): string {
  const minutes = Math.max(0, Math.round((new Date(deadline).getTime() - now) / 60_000));
  return minutes >= 120 ? `in ${Math.round(minutes / 60)} h` : `in ${minutes} min`;
}
