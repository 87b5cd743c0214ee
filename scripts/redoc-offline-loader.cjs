// Webpack loader for Redoc's standalone bundle (src/app/docs/page.tsx). Its UMD header requires a
// module named "null" (in a browser, a global it never reads), and its sidebar's attribution logo
// comes from Redocly's CDN, which the Content-Security-Policy refuses and an offline network
// cannot reach: the logo becomes an empty image, which Redoc hides. A Redoc version that changes
// either string fails the build rather than breaking the page.
const REPLACEMENTS = [
  ['require("null")', "undefined"],
  ['"https://cdn.redoc.ly/redoc/logo-mini.svg"', '"data:,"'],
];

/* global module */
module.exports = function redocOffline(source) {
  let result = source;
  for (const [from, to] of REPLACEMENTS) {
    if (!result.includes(from)) throw new Error(`redoc-offline-loader: ${from} not found in Redoc's bundle`);
    result = result.split(from).join(to);
  }
  return result;
};
