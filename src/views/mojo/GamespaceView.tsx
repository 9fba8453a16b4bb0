import { useParams } from 'react-router';

/** /mojo/{id}/**: the gamespace play page, which arrives with gamespaces. */
export default function GamespaceView() {
  const { id } = useParams();
  return (
    <div className="tp-page">
      <h1>Gamespace</h1>
      <p className="tp-muted">{id}</p>
      <p>The play page for this gamespace arrives with gamespaces.</p>
    </div>
  );
}
