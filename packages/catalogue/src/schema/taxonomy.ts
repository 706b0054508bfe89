/**
 * The broad sound taxonomy (BST) a sound's `category` and `subcategory` name: five categories, each
 * with a code prefix, and their subcategories, each with a code suffix. The contract's
 * `category_code` joins the two with a dash (`fx-a`); names are the ones stored and shown.
 * Subcategory names repeat across categories ("Other"), so a subcategory is only known with its
 * category.
 */
export const BROAD_SOUND_TAXONOMY = [
  {
    code: 'm',
    name: 'Music',
    subcategories: [
      { code: 'sp', name: 'Solo percussion' },
      { code: 'si', name: 'Solo instrument' },
      { code: 'm', name: 'Multiple instruments' },
      { code: 'other', name: 'Other' },
    ],
  },
  {
    code: 'is',
    name: 'Instrument samples',
    subcategories: [
      { code: 'p', name: 'Percussion' },
      { code: 's', name: 'String' },
      { code: 'w', name: 'Wind' },
      { code: 'k', name: 'Piano / Keyboard instruments' },
      { code: 'e', name: 'Synths / Electronic' },
      { code: 'other', name: 'Other' },
    ],
  },
  {
    code: 'sp',
    name: 'Speech',
    subcategories: [
      { code: 's', name: 'Solo speech' },
      { code: 'c', name: 'Conversation / Crowd' },
      { code: 'p', name: 'Processed / Synthetic' },
      { code: 'other', name: 'Other' },
    ],
  },
  {
    code: 'fx',
    name: 'Sound effects',
    subcategories: [
      { code: 'o', name: 'Objects / House appliances' },
      { code: 'v', name: 'Vehicles' },
      { code: 'm', name: 'Other mechanisms, engines, machines' },
      { code: 'h', name: 'Human sounds and actions' },
      { code: 'a', name: 'Animals' },
      { code: 'n', name: 'Natural elements and explosions' },
      { code: 'ex', name: 'Experimental' },
      { code: 'el', name: 'Electronic / Design' },
      { code: 'other', name: 'Other' },
    ],
  },
  {
    code: 'ss',
    name: 'Soundscapes',
    subcategories: [
      { code: 'n', name: 'Nature' },
      { code: 'i', name: 'Indoors' },
      { code: 'u', name: 'Urban' },
      { code: 's', name: 'Synthetic / Artificial' },
      { code: 'other', name: 'Other' },
    ],
  },
] as const;

/**
 * The `category_code` of a category and subcategory given by name: `prefix-suffix` (`fx-a`), the
 * bare prefix when only the category is known (no subcategory, or one that is not the category's:
 * `m`), null when the category is missing or is not a taxonomy name. Names must match exactly, as
 * the search's category filters do.
 */
export function categoryCode(
  category: string | null | undefined,
  subcategory: string | null | undefined,
): string | null {
  const top = BROAD_SOUND_TAXONOMY.find((c) => c.name === category);
  if (!top) return null;
  const sub = top.subcategories.find((s) => s.name === subcategory);
  return sub ? `${top.code}-${sub.code}` : top.code;
}

/**
 * The names a `category_code` stands for (the reverse of categoryCode): `fx-a` → Sound effects /
 * Animals, a bare prefix `m` → Music with no subcategory; undefined for anything else.
 */
export function categoryNames(code: string): { category: string; subcategory: string | null } | undefined {
  const [prefix, suffix, ...rest] = code.split('-');
  const top = BROAD_SOUND_TAXONOMY.find((c) => c.code === prefix);
  if (!top || rest.length) return undefined;
  if (suffix === undefined) return { category: top.name, subcategory: null };
  const sub = top.subcategories.find((s) => s.code === suffix);
  return sub ? { category: top.name, subcategory: sub.name } : undefined;
}
