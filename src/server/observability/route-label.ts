// A finer route label a door sets once it has matched a request (the REST door's path template),
// read by observe.ts for the log line and the metrics.
const routeLabels = new WeakMap<Request, string>();

export function labelRoute(request: Request, route: string): void {
  routeLabels.set(request, route);
}

export function routeLabelOf(request: Request): string | undefined {
  return routeLabels.get(request);
}
