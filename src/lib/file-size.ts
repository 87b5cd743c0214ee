// A file's size as people read it in their language: "512 bytes", "12 kB", "1.5 MB" in English,
// "512 octets", "1,5 Mo" in French. The one helper for every size the portal and the console show.
// Sizes count in 1,024s, as the upload limits do (10 MB is 10 × 1,024 × 1,024 bytes).
const UNITS = [
  { unit: "gigabyte", bytes: 1024 ** 3, digits: 1 },
  { unit: "megabyte", bytes: 1024 ** 2, digits: 1 },
  { unit: "kilobyte", bytes: 1024, digits: 0 },
] as const;

export function formatFileSize(bytes: number, language = "en"): string {
  for (const { unit, bytes: size, digits } of UNITS) {
    // Rounded up to the next unit when it would read "1,024 kB".
    if (bytes >= size || Math.round(bytes / (size / 1024)) >= 1024) {
      return new Intl.NumberFormat(language, { style: "unit", unit, maximumFractionDigits: digits }).format(
        bytes / size,
      );
    }
  }
  // Whole bytes, spelled out ("512 bytes", "512 octets"): the short form reads "512 byte".
  return new Intl.NumberFormat(language, { style: "unit", unit: "byte", unitDisplay: "long" }).format(bytes);
}
