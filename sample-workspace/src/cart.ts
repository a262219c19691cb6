/** One line of a cart: a product, its unit price in cents and how many. */
export interface CartLine {
  sku: string;
  unitPriceCents: number;
  quantity: number;
}

/** A discount code: a percentage off the subtotal, above a minimum. */
export interface Discount {
  code: string;
  percent: number;
  minimumCents: number;
}

/** Adds a product to the cart, merging with an existing line of the same SKU. */
export function addLine(lines: CartLine[], line: CartLine): CartLine[] {
  const existing = lines.find((l) => l.sku === line.sku);
  if (!existing) return [...lines, line];
  return lines.map((l) => (l.sku === line.sku ? { ...l, quantity: l.quantity + line.quantity } : l));
}

/** Sum of every line, in cents. */
export function subtotalCents(lines: CartLine[]): number {
  return lines.reduce((sum, l) => sum + l.unitPriceCents * l.quantity, 0);
}

/** The total after an optional discount, rounded down to the cent. */
export function totalCents(lines: CartLine[], discount?: Discount): number {
  const subtotal = subtotalCents(lines);
  if (!discount || subtotal < discount.minimumCents) return subtotal;
  return Math.floor(subtotal * (1 - discount.percent / 100));
}
