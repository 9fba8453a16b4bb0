import { useActorRef } from '@xstate/react';
import { useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { TemplateManagerView } from '../../views/admin/TemplateManagerView';
import { useAppServices } from '../services';
import { templateManagerLogic } from '../templateManagerImplementations';

/** /admin/templates?term={workspace id}: the template manager, searching the term it opens with. */
export function TemplatesSection() {
  const { workspace, inspect } = useAppServices();
  const [params] = useSearchParams();
  const logic = useMemo(() => templateManagerLogic(workspace.http), [workspace]);
  const manager = useActorRef(logic, { inspect, input: { term: params.get('term') ?? '' } });
  return <TemplateManagerView manager={manager} />;
}
