// The portal's look from its accent colour: a button text colour and a link colour per theme that
// stay readable (WCAG AA, 4.5:1) whatever colour an admin picks. The page colours are those of
// src/app/theme.css.

const DEFAULT_ACCENT = "#3b5bdb";
const DARK_TEXT = "#1c2430";
const WHITE = "#ffffff";
const BLACK = "#000000";
/** The light page background (links sit on it and on white panels). */
const PAGE = "#f6f7f9";
/** What links sit on in the dark theme: the page, panels and the end user's own messages (--selected-bg). */
const DARK_BACKGROUNDS = ["#111418", "#1a1e24", "#232c4a"];

function luminance(hex: string): number {
  const channels = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
  const [r, g, b] = channels.map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)) as [
    number,
    number,
    number,
  ];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/** `hex` mixed with white by `share` (0 to 1). */
function towardWhite(hex: string, share: number): string {
  const channels = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return `#${channels
    .map((c) =>
      Math.round(c + (255 - c) * share)
        .toString(16)
        .padStart(2, "0"),
    )
    .join("")}`;
}

/** The colour itself when it reads on every background, else the least lightened tint of it that does (white at worst). */
function lightenUntilReadable(hex: string, backgrounds: string[]): string {
  for (let share = 0; share < 1; share += 0.05) {
    const tint = towardWhite(hex, share);
    if (backgrounds.every((background) => contrastRatio(tint, background) >= 4.5)) return tint;
  }
  return WHITE;
}

export interface PortalTheme {
  accent: string;
  /** Text on an accent background. */
  accentText: string;
  /** Links on the white page: the accent when it is readable there, else the body text colour. */
  link: string;
  /** Links in the dark theme: the accent, lightened as little as needed to read on its backgrounds. */
  linkDark: string;
}

export function portalTheme(accentColor: string | null | undefined): PortalTheme {
  const accent = accentColor && /^#[0-9a-f]{6}$/i.test(accentColor) ? accentColor.toLowerCase() : DEFAULT_ACCENT;
  // White or black: one of them always reaches 4.5:1 on any colour.
  const accentText = contrastRatio(accent, WHITE) >= contrastRatio(accent, BLACK) ? WHITE : BLACK;
  const link = contrastRatio(accent, PAGE) >= 4.5 ? accent : DARK_TEXT;
  const linkDark = lightenUntilReadable(accent, DARK_BACKGROUNDS);
  return { accent, accentText, link, linkDark };
}
