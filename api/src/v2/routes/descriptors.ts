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
        return {
          'fixed-length': {
            'one-dimensional': names.oneDimensional,
            'multi-dimensional': names.multiDimensional,
          },
          'variable-length': names.variableLength,
        };
      },
    }),
  ];
}
