/** Any path the router does not know. */
export default function NotFoundView() {
  return (
    <div className="tp-page tp-center">
      <h1>page-not-found!</h1>
    </div>
  );
}
