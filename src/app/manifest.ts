// The web app manifest (/manifest.webmanifest): the name and icons a browser uses when the console is installed.
import type { MetadataRoute } from "next";

export default function manifest(): MetadataRoute.Manifest {
  return {
    name: "Atrium",
    short_name: "Atrium",
    description: "Serve AI agents to your organization's users",
    start_url: "/",
    display: "standalone",
    background_color: "#f6f7f9",
    theme_color: "#111827",
    icons: [
      { src: "/icon.svg", sizes: "any", type: "image/svg+xml" },
      { src: "/apple-icon", sizes: "180x180", type: "image/png" },
    ],
  };
}
