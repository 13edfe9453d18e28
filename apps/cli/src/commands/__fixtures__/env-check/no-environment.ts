/** A module that exports no environment (for `seal env check` tests). */
export const tools = {};
