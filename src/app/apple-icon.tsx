// The home-screen icon (180×180 PNG, which iOS needs instead of src/app/icon.svg), drawn from the same mark.
import { ImageResponse } from "next/og";

export const size = { width: 180, height: 180 };
export const contentType = "image/png";

export default function AppleIcon() {
  return new ImageResponse(
    <div
      style={{
        width: "100%",
        height: "100%",
        display: "flex",
        alignItems: "center",
        justifyContent: "center",
        background: "#3b5bdb",
      }}
    >
      <svg width="150" height="150" viewBox="0 0 32 32">
        <path
          d="M16 5.5c.7 4.9 2.7 6.9 7.6 7.6-4.9.7-6.9 2.7-7.6 7.6-.7-4.9-2.7-6.9-7.6-7.6 4.9-.7 6.9-2.7 7.6-7.6Z"
          fill="#fff"
        />
        <path
          d="M23.5 19.5c.35 2.2 1.3 3.15 3.5 3.5-2.2.35-3.15 1.3-3.5 3.5-.35-2.2-1.3-3.15-3.5-3.5 2.2-.35 3.15-1.3 3.5-3.5Z"
          fill="#fff"
        />
      </svg>
    </div>,
    size,
  );
}
