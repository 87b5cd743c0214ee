// Runs in the browser before the app's own modules (Next.js's client instrumentation hook). The
// console's and the portal's Content-Security-Policy forbids eval, so zod must neither compile
// parsers with it nor probe for it (a blocked probe is still reported as a violation); its object
// schemas decide that when they are built, at import, so this has to come first.
import { z } from "zod";

z.config({ jitless: true });
