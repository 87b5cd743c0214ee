// Shown at once while a console page loads (with the bar of navigation-progress.tsx above it).
export default function ConsoleLoading() {
  return (
    <div className="page-skeleton" role="status" aria-label="Loading the page">
      <title>Loading · Atrium</title>
      <div className="bone" style={{ height: "2rem", width: "40%" }} />
      <div className="bone" style={{ height: "1rem", width: "70%" }} />
      <div className="bone" style={{ height: "12rem" }} />
    </div>
  );
}
