import { useTitle } from '../common/useTitle';

/** Any path the router does not know. */
export default function NotFoundView() {
  useTitle('Page not found');
  return (
    <div className="tp-page tp-center">
      <h1>page-not-found!</h1>
    </div>
  );
}
