// The "rapidoc" package ships no types; importing it only defines the <rapi-doc> element.
declare module "rapidoc";
