// The <rapi-doc> element the "rapidoc" module defines, as JSX (attributes are strings).
import type { DetailedHTMLProps, HTMLAttributes } from "react";

declare module "react" {
  namespace JSX {
    interface IntrinsicElements {
      "rapi-doc": DetailedHTMLProps<HTMLAttributes<HTMLElement>, HTMLElement> & Record<`${string}-${string}`, string>;
    }
  }
}
