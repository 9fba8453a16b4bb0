import { useActorRef } from '@xstate/react';
import { useEffect, useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { DiskImagesPanel } from '../../views/admin/DiskImagesPanel';
import { TemplateManagerView } from '../../views/admin/TemplateManagerView';
import { diskImagesLogic } from '../diskImageImplementations';
import { useAppServices } from '../services';
import { templateManagerLogic } from '../templateManagerImplementations';

/**
 * /admin/templates?term={workspace id}: the template manager, searching the term it opens with,
 * and below it the disk images templates are made from (issue 31).
 */
export function TemplatesSection() {
  const { workspace, inspect, auth, settings } = useAppServices();
  const [params] = useSearchParams();
  const logic = useMemo(() => templateManagerLogic(workspace.http), [workspace]);
  const manager = useActorRef(logic, { inspect, input: { term: params.get('term') ?? '' } });
  const imagesLogic = useMemo(
    () => diskImagesLogic({ http: workspace.http, apphost: settings.apphost, auth }),
    [workspace, settings, auth],
  );
  const images = useActorRef(imagesLogic, { inspect });
  // A template made from an image opens in the manager, and its list shows it.
  useEffect(() => {
    const subscription = images.on('template.created', ({ id }) => {
      manager.send({ type: 'template.selected', id });
      manager.send({ type: 'template.saved', id });
    });
    return () => subscription.unsubscribe();
  }, [images, manager]);
  return (
    <>
      <TemplateManagerView manager={manager} />
      <DiskImagesPanel images={images} />
    </>
  );
}
