// The limits of what the operator's live configuration holds, one set for every way a value comes
// in (the admin API's schemas, `config apply`, CONFIG_FILE), so what one writes the others take back.

/** The most routes a model's list has. */
export const ROUTES_MAX = 50;
/** The longest vendor endpoint id. */
export const ENDPOINT_MAX = 300;
/** The most fixed input fields (`params`) a route sends, and the longest text value of one. */
export const ROUTE_PARAMS_MAX = 30;
export const ROUTE_PARAM_TEXT_MAX = 2000;
/** A fixed input field's name (not one that names an object's own machinery). */
export const ROUTE_PARAM_NAME = '^(?!(__proto__|constructor|prototype)$)[A-Za-z_][A-Za-z0-9_.-]{0,99}$';
/** A team's price multiplier is above 0 and at most this. */
export const PRICE_MULTIPLIER_MAX = 1000;
/** The most `kind:model` entries of a team's allowed or denied list, and their form. */
export const TEAM_MODEL_LIST_MAX = 1000;
export const MODEL_REF = '^[a-z0-9_]+:[a-zA-Z0-9][a-zA-Z0-9._/-]*$';
export const MODEL_REF_MAX = 240;
