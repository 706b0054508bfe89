import type { ApiServices } from '../../application/index.ts';
import { type AnyRoute, defineRoute } from '../../framework/http/route.ts';
import { descriptorsSchema } from '../presenters/schemas.ts';

export function descriptorRoutes(s: ApiServices): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/apiv2/descriptors/',
      operationId: 'availableDescriptors',
      summary: 'Descriptor names usable in content search, combined search and descriptor fields',
      tags: ['sounds'],
      auth: 'read',
      response: descriptorsSchema,
      handler: async () => {
        const names = s.engine.descriptorNames();
        // Variant A names descriptors by their place in the analysis tree; the consolidated
        // (variant B) names the engine also takes (`pitch`, `beat_times`) are not in its list.
        const dotted = (list: string[]) => list.filter((name) => name.includes('.'));
        return {
          'fixed-length': {
            'one-dimensional': dotted(names.oneDimensional),
            'multi-dimensional': dotted(names.multiDimensional),
          },
          'variable-length': dotted(names.variableLength),
        };
      },
    }),
  ];
}
