// File sizes in the reader's language, the one helper the portal and the console use.
import { describe, expect, it } from "vitest";
import { formatFileSize as format } from "@/lib/file-size";

/** Spaces as plain spaces: French puts a (narrow) no-break space before its units, its form by ICU version. */
const formatFileSize = (bytes: number, language?: string) => format(bytes, language).replace(/\s/g, " ");

describe("formatFileSize", () => {
  it("writes a size with the language's units and decimal mark", () => {
    const MB = 1024 * 1024;
    expect(formatFileSize(1.5 * MB, "fr")).toBe("1,5 Mo");
    expect(formatFileSize(1.5 * MB, "en")).toBe("1.5 MB");
    expect(formatFileSize(1.5 * MB, "de")).toBe("1,5 MB");
    expect(formatFileSize(10 * MB, "fr")).toBe("10 Mo");
    expect(formatFileSize(12 * 1024, "fr")).toBe("12 ko");
    expect(formatFileSize(12 * 1024)).toBe("12 kB");
    expect(formatFileSize(512, "en")).toBe("512 bytes");
    expect(formatFileSize(512, "fr")).toBe("512 octets");
    expect(formatFileSize(512, "de")).toBe("512 Byte");
    expect(formatFileSize(1, "en")).toBe("1 byte");
    expect(formatFileSize(3 * 1024 * MB, "fr")).toBe("3 Go");
    // Never "1,024 kB": a size that rounds to the next unit is written in it.
    expect(formatFileSize(MB - 100, "en")).toBe("1 MB");
  });
});
