/**
 * A frozen object's data property cannot be shadowed by assignment (`error.name = …`, `obj.toString = …`
 * throw in strict mode): `tame(target)` makes the usual ones accessors whose setter defines the property on
 * the object assigned to, as the override works on an unfrozen prototype. Source, evaluated where it is
 * used (the cells' realm, a Python worker's own world), so that its accessors are that world's functions.
 */
export const tameSource = `(target) => {
  for (const key of ["constructor", "toString", "toLocaleString", "valueOf", "name", "message", "toJSON"]) {
    const property = Reflect.getOwnPropertyDescriptor(target, key);
    if (!property || !("value" in property) || !property.configurable) continue;
    const { value } = property;
    Object.defineProperty(target, key, {
      get: () => value,
      set(assigned) {
        if (this === target) throw new TypeError("Cannot assign to read only property '" + key + "' of a frozen object");
        Object.defineProperty(this, key, { value: assigned, writable: true, enumerable: true, configurable: true });
      },
      enumerable: property.enumerable,
      configurable: false,
    });
  }
}`;
