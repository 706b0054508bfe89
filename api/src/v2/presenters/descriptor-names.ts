import { ALL_DESCRIPTOR_COLUMNS } from '@earshot/catalogue';
import { VARIANT_B_TYPES } from '@earshot/core';

/**
 * The content descriptors the contract lets variant B select by name in `fields`, in its order:
 * the filterable ones (the catalogue's typed columns), then the arrays (from the analysis core's
 * variant-B type table). Derived, so the three places can never disagree.
 */
export const DESCRIPTOR_FIELD_NAMES: readonly string[] = [
  ...ALL_DESCRIPTOR_COLUMNS,
  ...Object.entries(VARIANT_B_TYPES)
    .filter(([, type]) => type.endsWith('[]'))
    .map(([name]) => name),
];

export const DESCRIPTOR_NAME_SET: ReadonlySet<string> = new Set(DESCRIPTOR_FIELD_NAMES);
