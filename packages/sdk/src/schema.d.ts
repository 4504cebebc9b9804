// The types of the Generative Media Service API, generated from its /openapi.json by
// openapi-typescript (npm run sdk:types). Do not edit: regenerate.
export interface paths {
    "/admin/v1/aliases": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Model aliases, by name */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["ModelAlias"][];
                        };
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/aliases/{alias}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a model alias */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    alias: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            alias: string;
                            created_at: string;
                            kind: string;
                            model: string;
                        };
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        /** Make an alias name a catalog model: a request naming it is priced and run as that model */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    alias: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The model list kind of the model */
                        kind: string;
                        /** @description The catalog model the alias stands for */
                        model: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            alias: string;
                            created_at: string;
                            kind: string;
                            model: string;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        post?: never;
        /** Remove a model alias */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    alias: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/api-keys/{key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an API key
         * @description The key stops working at once on this process and within one second on every other.
         */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    key_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Revoked */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The changes made through the admin API to the live configuration, newest first */
        get: {
            parameters: {
                query?: {
                    cursor?: string;
                    /** @description Entries per page (1-100) */
                    limit?: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["AuditEntry"][];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/config": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The live configuration as one document (model prices, availability and routes, aliases, team rules) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            aliases: {
                                [key: string]: {
                                    kind: string;
                                    model: string;
                                };
                            };
                            /** @description By kind, then model id: {price?, available?, routes?} */
                            models: {
                                [key: string]: {
                                    [key: string]: unknown;
                                };
                            };
                            /** @description By team id: {price_multiplier, allowed_models, denied_models} */
                            teams: {
                                [key: string]: unknown;
                            };
                            version: number;
                        };
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/config/apply": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Apply a configuration document in one transaction (dry_run: show the differences only)
         * @description The document is checked whole first: an unknown key or a bad reference is a 400 naming its path and nothing is applied. Models and aliases it does not name go back to the catalog; teams it does not name keep their rules. Only what differs is written, each change an audit row: the same document twice changes nothing.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description A document as GET /admin/v1/config gives it */
                        document: unknown;
                        /** @description true: answer the differences and change nothing */
                        dry_run?: boolean;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description false: a dry run, or nothing differed */
                            applied: boolean;
                            changes: {
                                after: unknown;
                                before: unknown;
                                /** @description model kind:model, routes kind:model, alias <name>, team <id> */
                                target: string;
                            }[];
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/credentials": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The vendors' credentials (the environment's first, read-only), with their state */
        get: {
            parameters: {
                query?: {
                    provider?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["VendorCredential"][];
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Add a credential of a vendor: picked by weight among its active ones at each submit
         * @description Applies in every process within a second. The secret is stored sealed and never shown again (only its last four characters). Every change is an audit row.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        base_url?: string | null;
                        /** @description false: never picked; true: active again after the service disabled it */
                        enabled?: boolean;
                        max_in_flight?: number | null;
                        name: string;
                        /** @description One of fal, openai-compatible, elevenlabs, meshy, suno, replicate */
                        provider: string;
                        rpm?: number | null;
                        /** @description The key (sealed at rest, never shown again) */
                        secret: string;
                        weight?: number;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description The vendor API's base URL; null: the vendor's setting */
                            base_url: string | null;
                            cooling_until: string | null;
                            created_at: string | null;
                            /** @description cred_…, or env:<provider> for the key its environment variable sets */
                            id: string;
                            /** @description The most of its jobs at the vendor at once (submitted, not finished); null: no cap */
                            max_in_flight: number | null;
                            name: string;
                            provider: string;
                            /** @description Why it is disabled or cooling */
                            reason: string | null;
                            /** @description The most submits with it in any rolling minute (CREDENTIAL_RPM_WINDOW_S); null: no cap */
                            rpm: number | null;
                            /** @description The last four characters of the secret (never shown whole again) */
                            secret_last4: string;
                            /** @description env: read-only */
                            source: "api" | "env";
                            state: "active" | "cooling" | "disabled";
                            /** @description Its share of the submits among the active credentials of its vendor */
                            weight: number;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/credentials/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove a credential (its running jobs are polled with another of its vendor) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A request with this Idempotency-Key is still in flight (`idempotency_conflict`) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /**
         * Change a credential (enabled: true re-enables one the service disabled)
         * @description A credential set by the environment is read-only (409) but for {"enabled": true}.
         */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        base_url?: string | null;
                        /** @description false: never picked; true: active again after the service disabled it */
                        enabled?: boolean;
                        max_in_flight?: number | null;
                        name?: string;
                        rpm?: number | null;
                        /** @description The key (sealed at rest, never shown again) */
                        secret?: string;
                        weight?: number;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description The vendor API's base URL; null: the vendor's setting */
                            base_url: string | null;
                            cooling_until: string | null;
                            created_at: string | null;
                            /** @description cred_…, or env:<provider> for the key its environment variable sets */
                            id: string;
                            /** @description The most of its jobs at the vendor at once (submitted, not finished); null: no cap */
                            max_in_flight: number | null;
                            name: string;
                            provider: string;
                            /** @description Why it is disabled or cooling */
                            reason: string | null;
                            /** @description The most submits with it in any rolling minute (CREDENTIAL_RPM_WINDOW_S); null: no cap */
                            rpm: number | null;
                            /** @description The last four characters of the secret (never shown whole again) */
                            secret_last4: string;
                            /** @description env: read-only */
                            source: "api" | "env";
                            state: "active" | "cooling" | "disabled";
                            /** @description Its share of the submits among the active credentials of its vendor */
                            weight: number;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A request with this Idempotency-Key is still in flight (`idempotency_conflict`) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/admin/v1/generations/{generation_id}/attempts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List every vendor attempt of a generation's items */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    generation_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ProviderAttempt"][];
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/models/{kind}/{model}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A model's price and availability now, and what the operator changed of them */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    kind: string;
                    model: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description false: the operator switched the model off */
                            available: boolean;
                            /** @description The catalog's price */
                            catalog_price: {
                                [key: string]: unknown;
                            } | null;
                            kind: string;
                            model: string;
                            override: {
                                available: boolean | null;
                                price: {
                                    [key: string]: unknown;
                                } | null;
                            };
                            /** @description The price charged now */
                            price: {
                                [key: string]: unknown;
                            } | null;
                        };
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change a model's price or availability without a restart (null: back to the catalog's)
         * @description kind and model are the model list's (GET /api/v1/models), the models endpoints name themselves included (image/influencer-v1, video/kling-2.6-motion-control, voice/tts, ...). Applies in every process within a second: to requests accepted after it and to quotes. Requests accepted before keep the price they were charged. Every change is an audit row.
         */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    kind: string;
                    model: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description false: refused as unavailable (503 model_unavailable) and listed so; null: as the catalog says. Not for the models endpoints name themselves (400) */
                        available?: boolean | null;
                        /** @description The price from now on (checked against the catalog's schema of the model's price object); null: the catalog's */
                        price?: {
                            [key: string]: unknown;
                        } | null;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description false: the operator switched the model off */
                            available: boolean;
                            /** @description The catalog's price */
                            catalog_price: {
                                [key: string]: unknown;
                            } | null;
                            kind: string;
                            model: string;
                            override: {
                                available: boolean | null;
                                price: {
                                    [key: string]: unknown;
                                } | null;
                            };
                            /** @description The price charged now */
                            price: {
                                [key: string]: unknown;
                            } | null;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/admin/v1/models/{kind}/{model}/routes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A model's vendor routes now, and whether they are the catalog's or the operator's */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    kind: string;
                    model: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description The catalog's routes (tier: the place in its list) */
                            catalog_routes: {
                                enabled: boolean;
                                /** @description The vendor's endpoint id */
                                endpoint: string;
                                /** @description The endpoint used instead when the request brings images to start from (a first frame) */
                                image_endpoint?: string;
                                /** @description image_endpoint's mapping, one of the vendor's */
                                image_mapping?: string;
                                mapping: string | null;
                                /** @description Fixed input fields the route sends, over what its mapping makes (e.g. a generic endpoint's base model, a ComfyUI checkpoint); at most 30, named as /^(?!(__proto__|constructor|prototype)$)[A-Za-z_][A-Za-z0-9_.-]{0,99}$/, each a string of at most 2000 characters, a number or a boolean. Never a secret: they are shown by GET, the audit and config export */
                                params?: {
                                    [key: string]: string | number | boolean;
                                };
                                /** @description A vendor id (fal, replicate, ...) */
                                provider: string;
                                tier: number;
                                weight: number;
                            }[];
                            kind: string;
                            model: string;
                            /** @description The routes that serve the model now, in order */
                            routes: {
                                enabled: boolean;
                                /** @description The vendor's endpoint id */
                                endpoint: string;
                                /** @description The endpoint used instead when the request brings images to start from (a first frame) */
                                image_endpoint?: string;
                                /** @description image_endpoint's mapping, one of the vendor's */
                                image_mapping?: string;
                                mapping: string | null;
                                /** @description Fixed input fields the route sends, over what its mapping makes (e.g. a generic endpoint's base model, a ComfyUI checkpoint); at most 30, named as /^(?!(__proto__|constructor|prototype)$)[A-Za-z_][A-Za-z0-9_.-]{0,99}$/, each a string of at most 2000 characters, a number or a boolean. Never a secret: they are shown by GET, the audit and config export */
                                params?: {
                                    [key: string]: string | number | boolean;
                                };
                                /** @description A vendor id (fal, replicate, ...) */
                                provider: string;
                                tier: number;
                                weight: number;
                            }[];
                            /** @description override: the operator's list serves; catalog: the catalog's */
                            source: "catalog" | "override";
                        };
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        /**
         * Replace a model's vendor routes without a restart (routes: null, or DELETE: the catalog's)
         * @description The lowest tier is tried first, at random by weight among its usable routes; a failover goes to another route of the tier, then to the next tier. Each provider must be a known vendor and each mapping one of that vendor's; a refused entry is a 400 naming it (routes[1].mapping) and nothing changes. image_endpoint and image_mapping (together) serve requests that bring images to start from, and a request naming its provider (settings.provider) keeps to that vendor's routes, as with the catalog's routes. Applies in every process within a second, to requests accepted after it: one accepted before keeps the routes it was accepted with, however long it waits or retries. Every change is an audit row.
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    kind: string;
                    model: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The model's routes from now on, in place of the catalog's; null: the catalog's again */
                        routes: {
                            /** @description false: never used (default true) */
                            enabled?: boolean;
                            /** @description The vendor's endpoint id */
                            endpoint: string;
                            /** @description The endpoint used instead when the request brings images to start from (a first frame) */
                            image_endpoint?: string;
                            /** @description image_endpoint's mapping, one of the vendor's */
                            image_mapping?: string;
                            /** @description One of the vendor's mappings; null or absent only for a route that serves requests that bring images (image_endpoint and image_mapping) */
                            mapping?: string | null;
                            /** @description Fixed input fields the route sends, over what its mapping makes (e.g. a generic endpoint's base model, a ComfyUI checkpoint); at most 30, named as /^(?!(__proto__|constructor|prototype)$)[A-Za-z_][A-Za-z0-9_.-]{0,99}$/, each a string of at most 2000 characters, a number or a boolean. Never a secret: they are shown by GET, the audit and config export */
                            params?: {
                                [key: string]: string | number | boolean;
                            };
                            /** @description A vendor id (fal, replicate, ...) */
                            provider: string;
                            /** @description The lowest tier is tried first; absent: its place in the list */
                            tier?: number;
                            /** @description Its share of the picks within its tier (default 1) */
                            weight?: number;
                        }[] | null;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description The catalog's routes (tier: the place in its list) */
                            catalog_routes: {
                                enabled: boolean;
                                /** @description The vendor's endpoint id */
                                endpoint: string;
                                /** @description The endpoint used instead when the request brings images to start from (a first frame) */
                                image_endpoint?: string;
                                /** @description image_endpoint's mapping, one of the vendor's */
                                image_mapping?: string;
                                mapping: string | null;
                                /** @description Fixed input fields the route sends, over what its mapping makes (e.g. a generic endpoint's base model, a ComfyUI checkpoint); at most 30, named as /^(?!(__proto__|constructor|prototype)$)[A-Za-z_][A-Za-z0-9_.-]{0,99}$/, each a string of at most 2000 characters, a number or a boolean. Never a secret: they are shown by GET, the audit and config export */
                                params?: {
                                    [key: string]: string | number | boolean;
                                };
                                /** @description A vendor id (fal, replicate, ...) */
                                provider: string;
                                tier: number;
                                weight: number;
                            }[];
                            kind: string;
                            model: string;
                            /** @description The routes that serve the model now, in order */
                            routes: {
                                enabled: boolean;
                                /** @description The vendor's endpoint id */
                                endpoint: string;
                                /** @description The endpoint used instead when the request brings images to start from (a first frame) */
                                image_endpoint?: string;
                                /** @description image_endpoint's mapping, one of the vendor's */
                                image_mapping?: string;
                                mapping: string | null;
                                /** @description Fixed input fields the route sends, over what its mapping makes (e.g. a generic endpoint's base model, a ComfyUI checkpoint); at most 30, named as /^(?!(__proto__|constructor|prototype)$)[A-Za-z_][A-Za-z0-9_.-]{0,99}$/, each a string of at most 2000 characters, a number or a boolean. Never a secret: they are shown by GET, the audit and config export */
                                params?: {
                                    [key: string]: string | number | boolean;
                                };
                                /** @description A vendor id (fal, replicate, ...) */
                                provider: string;
                                tier: number;
                                weight: number;
                            }[];
                            /** @description override: the operator's list serves; catalog: the catalog's */
                            source: "catalog" | "override";
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        post?: never;
        /** Give a model back the catalog's routes */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    kind: string;
                    model: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description The catalog's routes (tier: the place in its list) */
                            catalog_routes: {
                                enabled: boolean;
                                /** @description The vendor's endpoint id */
                                endpoint: string;
                                /** @description The endpoint used instead when the request brings images to start from (a first frame) */
                                image_endpoint?: string;
                                /** @description image_endpoint's mapping, one of the vendor's */
                                image_mapping?: string;
                                mapping: string | null;
                                /** @description Fixed input fields the route sends, over what its mapping makes (e.g. a generic endpoint's base model, a ComfyUI checkpoint); at most 30, named as /^(?!(__proto__|constructor|prototype)$)[A-Za-z_][A-Za-z0-9_.-]{0,99}$/, each a string of at most 2000 characters, a number or a boolean. Never a secret: they are shown by GET, the audit and config export */
                                params?: {
                                    [key: string]: string | number | boolean;
                                };
                                /** @description A vendor id (fal, replicate, ...) */
                                provider: string;
                                tier: number;
                                weight: number;
                            }[];
                            kind: string;
                            model: string;
                            /** @description The routes that serve the model now, in order */
                            routes: {
                                enabled: boolean;
                                /** @description The vendor's endpoint id */
                                endpoint: string;
                                /** @description The endpoint used instead when the request brings images to start from (a first frame) */
                                image_endpoint?: string;
                                /** @description image_endpoint's mapping, one of the vendor's */
                                image_mapping?: string;
                                mapping: string | null;
                                /** @description Fixed input fields the route sends, over what its mapping makes (e.g. a generic endpoint's base model, a ComfyUI checkpoint); at most 30, named as /^(?!(__proto__|constructor|prototype)$)[A-Za-z_][A-Za-z0-9_.-]{0,99}$/, each a string of at most 2000 characters, a number or a boolean. Never a secret: they are shown by GET, the audit and config export */
                                params?: {
                                    [key: string]: string | number | boolean;
                                };
                                /** @description A vendor id (fal, replicate, ...) */
                                provider: string;
                                tier: number;
                                weight: number;
                            }[];
                            /** @description override: the operator's list serves; catalog: the catalog's */
                            source: "catalog" | "override";
                        };
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/providers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the providers, the models each serves and the routes cooling down */
        get: {
            parameters: {
                query?: {
                    /** @description Make one harmless authenticated call to each configured provider (default false) */
                    check?: boolean;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ProviderSummary"][];
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/reports/margin": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Revenue against vendor cost, by model, vendor or team
         * @description Over the generations created in [from, to): credits net of refunds, their revenue at CREDIT_VALUE_USD (null, with the margin, when it is unset), the vendor cost in US dollars recorded on their attempts (and their sub-work's), and the attempts whose cost is unknown (`unpriced_attempts`: not in the cost, not free). `negative` lists the rows whose margin is below 0. With `format=csv`: a header row `key,generations,credits,revenue_usd,vendor_cost_usd,margin_usd,unpriced_attempts`, one row per key.
         */
        get: {
            parameters: {
                query: {
                    format?: "json" | "csv";
                    /** @description Start of the range (ISO 8601, inclusive): generations created from then */
                    from: string;
                    group_by: "model" | "vendor" | "team";
                    /** @description End of the range (ISO 8601, exclusive) */
                    to: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The report */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description What one credit is worth (CREDIT_VALUE_USD); null when unset */
                            credit_value_usd: number | null;
                            from: string;
                            group_by: string;
                            /** @description The rows whose margin is below 0 */
                            negative: {
                                /** @description Credits charged net of refunds */
                                credits: number;
                                generations: number;
                                /** @description The model id, the vendor (provider id) or the team id */
                                key: string;
                                /** @description revenue_usd − vendor_cost_usd; null when CREDIT_VALUE_USD is unset */
                                margin_usd: number | null;
                                /** @description credits × credit_value_usd; null when CREDIT_VALUE_USD is unset */
                                revenue_usd: number | null;
                                /** @description Vendor attempts whose cost is unknown (not in vendor_cost_usd: not free, unpriced) */
                                unpriced_attempts: number;
                                /** @description The sum of the priced vendor attempts, in US dollars */
                                vendor_cost_usd: number;
                            }[];
                            rows: {
                                /** @description Credits charged net of refunds */
                                credits: number;
                                generations: number;
                                /** @description The model id, the vendor (provider id) or the team id */
                                key: string;
                                /** @description revenue_usd − vendor_cost_usd; null when CREDIT_VALUE_USD is unset */
                                margin_usd: number | null;
                                /** @description credits × credit_value_usd; null when CREDIT_VALUE_USD is unset */
                                revenue_usd: number | null;
                                /** @description Vendor attempts whose cost is unknown (not in vendor_cost_usd: not free, unpriced) */
                                unpriced_attempts: number;
                                /** @description The sum of the priced vendor attempts, in US dollars */
                                vendor_cost_usd: number;
                            }[];
                            to: string;
                        };
                        "text/csv": string;
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/teams": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List teams, newest first */
        get: {
            parameters: {
                query: {
                    /** @description Last id of the previous page */
                    before?: string;
                    limit: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Team"][];
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /** Create a team */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /**
                         * @description Starting credits (a ledger grant)
                         * @default 0
                         */
                        credits?: number;
                        name: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description kind:model entries; when not empty, the only models the team may use */
                            allowed_models: string[];
                            /**
                             * Format: date-time
                             * @example 2026-11-22T01:22:07.123Z
                             */
                            created_at: string;
                            /** @description Current balance */
                            credits: number;
                            /** @description kind:model entries the team may not use */
                            denied_models: string[];
                            id: string;
                            /** @description Items it runs at once; null: the service default (TEAM_MAX_CONCURRENT_ITEMS) */
                            max_concurrent_items: number | null;
                            name: string;
                            /** @description Every price the team is charged and quoted is multiplied by it */
                            price_multiplier: number;
                            /** @description Items running now */
                            running_items: number;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/teams/{team_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a team */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    team_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description kind:model entries; when not empty, the only models the team may use */
                            allowed_models: string[];
                            /**
                             * Format: date-time
                             * @example 2026-11-22T01:22:07.123Z
                             */
                            created_at: string;
                            /** @description Current balance */
                            credits: number;
                            /** @description kind:model entries the team may not use */
                            denied_models: string[];
                            id: string;
                            /** @description Items it runs at once; null: the service default (TEAM_MAX_CONCURRENT_ITEMS) */
                            max_concurrent_items: number | null;
                            name: string;
                            /** @description Every price the team is charged and quoted is multiplied by it */
                            price_multiplier: number;
                            /** @description Items running now */
                            running_items: number;
                        };
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Change a team's settings: its cap of items running at once, its price multiplier and the models open to it */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    team_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description When not empty, the only models the team may use (others are 403 and not listed to it) */
                        allowed_models?: string[];
                        /** @description Models the team may not use (403, not listed to it) */
                        denied_models?: string[];
                        /** @description Items the team runs at once; more wait in `queued` with their queue_position and start in order as room frees. null: the service default (TEAM_MAX_CONCURRENT_ITEMS). */
                        max_concurrent_items?: number | null;
                        /** @description Multiplies every price the team is charged and quoted (each item rounded up to whole credits); 1: list prices */
                        price_multiplier?: number;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description kind:model entries; when not empty, the only models the team may use */
                            allowed_models: string[];
                            /**
                             * Format: date-time
                             * @example 2026-11-22T01:22:07.123Z
                             */
                            created_at: string;
                            /** @description Current balance */
                            credits: number;
                            /** @description kind:model entries the team may not use */
                            denied_models: string[];
                            id: string;
                            /** @description Items it runs at once; null: the service default (TEAM_MAX_CONCURRENT_ITEMS) */
                            max_concurrent_items: number | null;
                            name: string;
                            /** @description Every price the team is charged and quoted is multiplied by it */
                            price_multiplier: number;
                            /** @description Items running now */
                            running_items: number;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/admin/v1/teams/{team_id}/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List a team's API keys (without secrets) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    team_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiKey"][];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /** Issue an API key for a team */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    team_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        name?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /**
                             * Format: date-time
                             * @example 2026-11-22T01:22:07.123Z
                             */
                            created_at: string;
                            id: string;
                            /** @description The API key itself; shown only in this response */
                            key: string;
                            name: string | null;
                            /** @description First characters of the key, to recognise it */
                            prefix: string;
                            revoked_at: string | null;
                            team_id: string;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/teams/{team_id}/credits": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Grant credits (or correct the balance with a negative amount) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    team_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Credits to add; a negative amount is a correction and may not take the balance below zero */
                        amount: number;
                        reason: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            balance: number;
                            entry: components["schemas"]["LedgerEntry"];
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not enough credits (`insufficient_credits`) */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/teams/{team_id}/ledger": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A team's ledger entries, newest first */
        get: {
            parameters: {
                query: {
                    /** @description Last id of the previous page */
                    before?: string;
                    limit: number;
                };
                header?: never;
                path: {
                    team_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["LedgerEntry"][];
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/teams/{team_id}/storyboards": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Import a storyboard project for a team
         * @description Creates a whole project graph in one transaction: either all of it is stored or nothing. Positions and versions follow the order of the arrays (1-based, versions oldest first). At most one image version per frame and one video version per shot may be `selected`; asset names are unique per kind. Unknown fields are refused. The body may be up to 32 MiB (or JSON_BODY_LIMIT, if larger). Answers with the project as GET /api/v1/storyboard/{projectId} does. See docs/storyboards.md for a full example.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    team_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Frame shape, e.g. "16:9" */
                        aspect_ratio?: string;
                        /** @description Project description */
                        description?: string;
                        /**
                         * @description Custom elements: props, creatures, logos...
                         * @default []
                         */
                        elements?: {
                            /** @description Free text */
                            description?: string;
                            /** @default [] */
                            image_urls?: string[];
                            /** @description Unique per kind within the project */
                            name: string;
                        }[];
                        /**
                         * @description Places where scenes are set
                         * @default []
                         */
                        locations?: {
                            /** @description Free text */
                            description?: string;
                            /** @default [] */
                            image_urls?: string[];
                            /** @description Unique per kind within the project */
                            name: string;
                        }[];
                        /** @description Project name */
                        name: string;
                        /**
                         * @description Costumes worn in the project
                         * @default []
                         */
                        outfits?: {
                            /** @description Free text */
                            description?: string;
                            /** @default [] */
                            image_urls?: string[];
                            /** @description Unique per kind within the project */
                            name: string;
                        }[];
                        /**
                         * @description In order: the first is position 1
                         * @default []
                         */
                        scenes?: {
                            /** @description What happens in the scene */
                            description?: string;
                            /**
                             * @description In order
                             * @default []
                             */
                            shots?: {
                                /** @description Framing and movement, e.g. "wide, slow dolly-in" */
                                camera?: string;
                                /** @description What happens in the shot */
                                description?: string;
                                /** @description Planned length of the shot */
                                duration_seconds?: number;
                                /**
                                 * @description In order
                                 * @default []
                                 */
                                frames?: {
                                    /**
                                     * @description Oldest first: the first is version 1
                                     * @default []
                                     */
                                    image_versions?: {
                                        /** @description The prompt this version was generated from */
                                        prompt?: string;
                                        /**
                                         * @description Marks the chosen version; at most one per frame
                                         * @default false
                                         */
                                        selected?: boolean;
                                        /**
                                         * Format: uri
                                         * @description The image (http or https)
                                         */
                                        url: string;
                                    }[];
                                }[];
                                /**
                                 * @description Oldest first: the first is version 1
                                 * @default []
                                 */
                                video_versions?: {
                                    /** @description Length of the video */
                                    duration_seconds?: number;
                                    /** @description The prompt this version was generated from */
                                    prompt?: string;
                                    /**
                                     * @description Marks the chosen version; at most one per shot
                                     * @default false
                                     */
                                    selected?: boolean;
                                    /**
                                     * Format: uri
                                     * @description The video (http or https)
                                     */
                                    url: string;
                                }[];
                            }[];
                            /** @description Scene title */
                            title: string;
                        }[];
                        /** @description Assigns the result to a workspace of your team (404 unknown, 403 another team) */
                        workspace_id?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            aspect_ratio: string | null;
                            /**
                             * Format: date-time
                             * @example 2026-11-22T01:22:07.123Z
                             */
                            created_at: string;
                            description: string | null;
                            elements: {
                                description: string | null;
                                id: string;
                                image_urls: string[];
                                name: string;
                            }[];
                            /** @example sb_01jb7m2x4k9q3r5t6v7w8y9z0a */
                            id: string;
                            locations: {
                                description: string | null;
                                id: string;
                                image_urls: string[];
                                name: string;
                            }[];
                            name: string;
                            outfits: {
                                description: string | null;
                                id: string;
                                image_urls: string[];
                                name: string;
                            }[];
                            scene_count: number;
                            /** @description By position */
                            scenes: {
                                description: string | null;
                                id: string;
                                position: number;
                                shots: {
                                    camera: string | null;
                                    description: string | null;
                                    duration_seconds: number | null;
                                    frames: {
                                        id: string;
                                        image_url: string | null;
                                        /** @description Oldest first */
                                        image_versions: {
                                            /**
                                             * Format: date-time
                                             * @example 2026-11-22T01:22:07.123Z
                                             */
                                            created_at: string;
                                            prompt: string | null;
                                            selected: boolean;
                                            /** Format: uri */
                                            url: string;
                                            /** @description 1 is the oldest */
                                            version: number;
                                        }[];
                                        position: number;
                                    }[];
                                    id: string;
                                    position: number;
                                    video_url: string | null;
                                    /** @description Oldest first */
                                    video_versions: {
                                        /**
                                         * Format: date-time
                                         * @example 2026-11-22T01:22:07.123Z
                                         */
                                        created_at: string;
                                        duration_seconds: number | null;
                                        prompt: string | null;
                                        selected: boolean;
                                        /** Format: uri */
                                        url: string;
                                        /** @description 1 is the oldest */
                                        version: number;
                                    }[];
                                }[];
                                title: string;
                            }[];
                            /**
                             * Format: date-time
                             * @example 2026-11-22T01:22:07.123Z
                             */
                            updated_at: string;
                            workspace_id: string | null;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The workspace belongs to another team, or the model is not open to this team (`forbidden`) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (`payload_too_large`) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/teams/{team_id}/webhook-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read the team's webhook signing secret */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    team_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Standard Webhooks signing secret (`whsec_<base64>`) */
                            secret: string;
                        };
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /** Rotate the team's webhook signing secret */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    team_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Standard Webhooks signing secret (`whsec_<base64>`) */
                            secret: string;
                        };
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/teams/{team_id}/workspaces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List a team's workspaces */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    team_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Workspace"][];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /** Create a workspace for a team */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    team_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Display name */
                        name: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /**
                             * Format: date-time
                             * @example 2026-11-22T01:22:07.123Z
                             */
                            created_at: string;
                            id: string;
                            name: string;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/billing/checkouts/{checkout_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a checkout (status, plan, price) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    checkout_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Price in the smallest unit of the currency (cents) */
                            amount: number;
                            cancel_url: string | null;
                            /** @description Where the buyer pays */
                            checkout_url: string;
                            /**
                             * Format: date-time
                             * @example 2026-11-22T01:22:07.123Z
                             */
                            created_at: string;
                            /** @description Credits added to the team when paid */
                            credits: number;
                            /** @description ISO 4217 code */
                            currency: string;
                            dispute_policy_acknowledged: boolean;
                            /**
                             * Format: date-time
                             * @example 2026-11-22T01:22:07.123Z
                             */
                            expires_at: string;
                            id: string;
                            paid_at: string | null;
                            plan_id: string;
                            provider: "builtin" | "stripe" | "lemonsqueezy";
                            signature_name: string | null;
                            /** @description 'open' until paid, cancelled or past expires_at */
                            status: "open" | "paid" | "cancelled" | "expired";
                            success_url: string | null;
                            variant_id: string;
                        };
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/billing/credits": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The team's credit balance
         * @description The body is a bare JSON number.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /** @example 10000 */
                        "application/json": number;
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/billing/ledger": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The team's ledger: every change of its balance, newest first
         * @description Cursor pagination: pass `next_cursor` as `cursor` for the next (older) page; it is null on the last one. Entries are ordered by `created_at`, then `id`, newest first. `created_after` and `created_before` are both exclusive. With `Accept: text/csv` the page comes as CSV (RFC 4180: a header row `id,created_at,kind,amount,balance_after,reason,generation_id`, one row per entry, CRLF line ends) and the next page's cursor in the `X-Next-Cursor` header (absent on the last page).
         */
        get: {
            parameters: {
                query?: {
                    /**
                     * @description Only entries created strictly after this time (to the millisecond, as entries show it)
                     * @example 2026-11-22T00:00:00.000Z
                     */
                    created_after?: string;
                    /**
                     * @description Only entries created strictly before this time
                     * @example 2026-11-23T00:00:00.000Z
                     */
                    created_before?: string;
                    /** @description The `next_cursor` of the page before; absent for the first page */
                    cursor?: string;
                    /** @description Entries per page (1-100) */
                    limit?: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description One page of entries */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @description Credits added (positive) or taken (negative: a charge) */
                                amount: number;
                                /** @description The balance this change produced */
                                balance_after: number;
                                /**
                                 * Format: date-time
                                 * @example 2026-11-22T01:22:07.123Z
                                 */
                                created_at: string;
                                /** @description The generation charged or refunded, if any */
                                generation_id: string | null;
                                /** @example led_01jb6x3t8h2k9m4n5p6q7r8s9t */
                                id: string;
                                /**
                                 * @description `charge` (a generation accepted), `refund` (a failed item, or the unused part of a charge), `purchase` (a paid checkout), `grant` and `correction` (by the operator)
                                 * @enum {unknown}
                                 */
                                kind: "grant" | "correction" | "charge" | "refund" | "purchase";
                                reason: string;
                            }[];
                            /** @description Pass as `cursor` for the next (older) page; null on the last page */
                            next_cursor: string | null;
                        };
                        "text/csv": string;
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/billing/plans": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the one-time credit plans */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["CreditPlan"][];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/billing/top-up": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Open a checkout to buy credits
         * @description Creates a hosted checkout for a one-time purchase of a plan variant and answers with the URL to send the buyer to. The credits are added once the provider confirms the payment.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /**
                         * Format: uri
                         * @description Where the buyer is sent after cancelling; default a page of this service
                         */
                        cancel_url?: string;
                        /**
                         * @description Must be true (the default): calling this endpoint acknowledges the dispute evidence policy; false is 400
                         * @default true
                         */
                        dispute_policy_acknowledged?: boolean;
                        /** @description A plan id from GET /api/v1/billing/plans */
                        plan_id: string;
                        /** @description Typed-name acknowledgement for this charge (recorded) */
                        signature_name?: string;
                        /**
                         * Format: uri
                         * @description Where the buyer is sent after paying; default a page of this service
                         */
                        success_url?: string;
                        /** @description An active variant of the plan; default the plan's first active variant */
                        variant_id?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Read the checkout with GET /api/v1/billing/checkouts/{checkout_id} */
                            checkout_id: string;
                            /** @description Send the buyer here to pay */
                            checkoutUrl: string;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/billing/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Credits spent by day and by operation and model over a range of days
         * @description UTC days `from` to `to`, both included (at most 366 days; default the last 30 days up to today). Counts the ledger's `charge` and `refund` entries (grants, purchases and corrections are not usage); an entry counts on the day it was written, and under the operation and model of the generation it names. `net` is what was spent: the balance went down by the sum of `net`.
         */
        get: {
            parameters: {
                query?: {
                    /**
                     * @description First UTC day (YYYY-MM-DD); default: 29 days before `to`
                     * @example 2026-11-01
                     */
                    from?: string;
                    /**
                     * @description Last UTC day, included (YYYY-MM-DD); default: today
                     * @example 2026-11-30
                     */
                    to?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Totals of each operation and model, most spent first */
                            by_operation: {
                                /** @description Credits charged (`charge` entries), as a positive number */
                                charged: number;
                                /** @description Generations charged */
                                generations: number;
                                /** @description The family of the operation (`image`, `video`, ...) */
                                kind: string | null;
                                model: string | null;
                                /** @description charged - refunded: what was spent */
                                net: number;
                                /** @example image.generate */
                                operation: string | null;
                                /** @description Credits given back (`refund` entries) */
                                refunded: number;
                            }[];
                            /** @description Every UTC day of the range, oldest first (days without usage are zeros) */
                            days: {
                                /** @description Credits charged (`charge` entries), as a positive number */
                                charged: number;
                                /** Format: date */
                                date: string;
                                /** @description Generations charged */
                                generations: number;
                                /** @description charged - refunded: what was spent */
                                net: number;
                                /** @description Credits given back (`refund` entries) */
                                refunded: number;
                            }[];
                            /** Format: date */
                            from: string;
                            /** Format: date */
                            to: string;
                            totals: {
                                /** @description Credits charged (`charge` entries), as a positive number */
                                charged: number;
                                /** @description Generations charged */
                                generations: number;
                                /** @description charged - refunded: what was spent */
                                net: number;
                                /** @description Credits given back (`refund` entries) */
                                refunded: number;
                            };
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/desktop-projects": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the team's desktop projects
         * @description Projects with at least one snapshot, most recently pushed first, each with its latest version and version count. `workspace_id` narrows the list to one workspace of the team.
         */
        get: {
            parameters: {
                query?: {
                    /** @description Assigns the result to a workspace of your team (404 unknown, 403 another team) */
                    workspace_id?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["DesktopProject"][];
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The workspace belongs to another team, or the model is not open to this team (`forbidden`) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Push a snapshot
         * @description Stores the payload as the next version of the project (1 for a new project). Concurrent pushes to one project get distinct, consecutive versions. The request body may be at most 5 MiB (413 `payload_too_large` beyond). `name` and `workspace_id`, when given, update the project. An `Idempotency-Key` makes a retried push safe. A push that would take the team past its storage quota (TEAM_STORAGE_QUOTA_MB) is 413 `payload_too_large`.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "desktop_project_id": "7f9c2b4e-2c1d-4f7e-9a51-0c6f3e2d8a11",
                     *       "name": "Launch teaser",
                     *       "payload": {
                     *         "storyboards": [],
                     *         "timelines": [],
                     *         "metadata": {
                     *           "app_version": "2.4.0"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Stable id the desktop app chose for the project: 1-128 characters of letters, digits, `_ . : -`. Scoped to your team: another team may use the same id for its own project.
                         * @example 7f9c2b4e-2c1d-4f7e-9a51-0c6f3e2d8a11
                         */
                        desktop_project_id: string;
                        /** @description Display name; when omitted the stored one stays */
                        name?: string;
                        /** @description The snapshot as the desktop app saves it. The three keys are required with these JSON types; their contents, and any further top-level keys, are stored and returned as sent. Media inside is referenced by URL (upload it with POST /api/v1/desktop-projects/{desktopProjectId}/media). */
                        payload: {
                            /** @description Any JSON object */
                            metadata: {
                                [key: string]: unknown;
                            };
                            /** @description Storyboards of the project; any JSON values */
                            storyboards: unknown[];
                            /** @description Studio timelines of the project; any JSON values */
                            timelines: unknown[];
                        } & {
                            [key: string]: unknown;
                        };
                        /** @description Puts the project in a workspace of your team (404 unknown, 403 another team); when omitted the project stays where it is */
                        workspace_id?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /**
                             * Format: date-time
                             * @example 2026-11-22T01:22:07.123Z
                             */
                            created_at: string;
                            desktop_project_id: string;
                            /** @description Size of the stored payload JSON in bytes */
                            size_bytes: number;
                            /** @description This snapshot’s number: 1, 2, 3, … per project */
                            version: number;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The workspace belongs to another team, or the model is not open to this team (`forbidden`) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (`payload_too_large`) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/desktop-projects/{desktopProjectId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a snapshot
         * @description The full snapshot with its payload: the given `version`, else the latest. 404 for an unknown project (another team’s included), a project never pushed, or a version it does not have.
         */
        get: {
            parameters: {
                query?: {
                    /** @description Version to read; the latest when omitted */
                    version?: number;
                };
                header?: never;
                path: {
                    /**
                     * @description Stable id the desktop app chose for the project: 1-128 characters of letters, digits, `_ . : -`. Scoped to your team: another team may use the same id for its own project.
                     * @example 7f9c2b4e-2c1d-4f7e-9a51-0c6f3e2d8a11
                     */
                    desktopProjectId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /**
                             * Format: date-time
                             * @example 2026-11-22T01:22:07.123Z
                             */
                            created_at: string;
                            desktop_project_id: string;
                            latest_version: number;
                            /** @description The project’s current name */
                            name: string | null;
                            /** @description The snapshot as the desktop app saves it. The three keys are required with these JSON types; their contents, and any further top-level keys, are stored and returned as sent. Media inside is referenced by URL (upload it with POST /api/v1/desktop-projects/{desktopProjectId}/media). */
                            payload: {
                                /** @description Any JSON object */
                                metadata: {
                                    [key: string]: unknown;
                                };
                                /** @description Storyboards of the project; any JSON values */
                                storyboards: unknown[];
                                /** @description Studio timelines of the project; any JSON values */
                                timelines: unknown[];
                            } & {
                                [key: string]: unknown;
                            };
                            size_bytes: number;
                            version: number;
                            /** @description The project’s current workspace */
                            workspace_id: string | null;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/desktop-projects/{desktopProjectId}/media": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Upload a media file for a project
         * @description multipart/form-data with one part, the file, in the field `file`. Accepted types: image/png, image/jpeg, image/webp, image/gif, video/mp4, video/quicktime, video/webm, audio/mpeg, audio/wav, audio/ogg, audio/flac, audio/mp4; the part's Content-Type and the filename's extension must agree with each other and with the bytes. Before the file is kept it is checked (a refused file is deleted): its signature, its whole container structure (nothing appended after its end), no markup or archive hidden in it, a real decode, and the limits: images ≤ 20 MiB and ≤ 8192x8192 (animations: width × height × frames ≤ 67108864 pixels); videos ≤ 200 MiB, ≤ 10 min and ≤ 8192x8192; audio ≤ 50 MiB and ≤ 30 min. A refusal is 422 `media_rejected` with the reason; a file over its limit is 413 `payload_too_large`, answered as soon as the limit is passed. The project need not have been pushed yet: upload its media first, then push the snapshot that uses the URLs. `Idempotency-Key` is not applied here (the body is streamed): a retried upload stores another copy. The file streams into storage as it arrives (never held in memory). A team sends at most UPLOADS_MAX_CONCURRENT_PER_TEAM uploads at once to a server (429 `rate_limited` with Retry-After past it), and an upload that would take the team past its storage quota (TEAM_STORAGE_QUOTA_MB) is 413 `payload_too_large`.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /**
                     * @description Stable id the desktop app chose for the project: 1-128 characters of letters, digits, `_ . : -`. Scoped to your team: another team may use the same id for its own project.
                     * @example 7f9c2b4e-2c1d-4f7e-9a51-0c6f3e2d8a11
                     */
                    desktopProjectId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "multipart/form-data": {
                        /**
                         * Format: binary
                         * @description The file, with its Content-Type (image/png, image/jpeg, image/webp, image/gif, video/mp4, video/quicktime, video/webm, audio/mpeg, audio/wav, audio/ogg, audio/flac, audio/mp4) and a filename with a matching extension
                         */
                        file: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @example image/png */
                            content_type: string;
                            /** @description Videos and audio */
                            duration_seconds?: number;
                            /** @description Images and videos, as displayed */
                            height?: number;
                            /** @enum {unknown} */
                            kind: "image" | "video" | "audio";
                            size_bytes: number;
                            /**
                             * Format: uri
                             * @description Public URL of the stored file, to embed in a snapshot
                             */
                            url: string;
                            /** @description Images and videos, as displayed */
                            width?: number;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (`payload_too_large`) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rejected content (`media_rejected`, `idempotency_mismatch`) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/desktop-projects/{desktopProjectId}/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a project's versions
         * @description Newest first, `limit` per page (default 100, at most 500); the next page starts `before` the last version of this one. 404 for an unknown project.
         */
        get: {
            parameters: {
                query?: {
                    /** @description Only versions below this one: pass the last version of the previous page */
                    before?: number;
                    /** @description Page size; default 100 */
                    limit?: number;
                };
                header?: never;
                path: {
                    /**
                     * @description Stable id the desktop app chose for the project: 1-128 characters of letters, digits, `_ . : -`. Scoped to your team: another team may use the same id for its own project.
                     * @example 7f9c2b4e-2c1d-4f7e-9a51-0c6f3e2d8a11
                     */
                    desktopProjectId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["DesktopProjectVersion"][];
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/generations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The team's generations, newest first
         * @description Cursor pagination: pass `next_cursor` as `cursor` for the next page; it is null on the last one. Each entry is the status record with what made it. Filters combine.
         */
        get: {
            parameters: {
                query?: {
                    /**
                     * @description Only entries created strictly after this time (to the millisecond, as entries show it)
                     * @example 2026-11-22T00:00:00.000Z
                     */
                    created_after?: string;
                    /**
                     * @description Only entries created strictly before this time
                     * @example 2026-11-23T00:00:00.000Z
                     */
                    created_before?: string;
                    /** @description The `next_cursor` of the page before; absent for the first page */
                    cursor?: string;
                    kind?: "image" | "video" | "music" | "model3d" | "text" | "speech" | "voice" | "influencer";
                    /** @description Entries per page (1-100) */
                    limit?: number;
                    model?: string;
                    /** @example video.lipsync */
                    operation?: string;
                    status?: "queued" | "processing" | "completed" | "failed";
                    workspace_id?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["GenerationHistoryEntry"][];
                            /** @description Pass as `cursor` for the next (older) page; null on the last page */
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/generations/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a generation
         * @description Items not yet finished end FAILED with the error `canceled`; their vendor jobs are asked to stop. What is refunded, once: in full for an item no vendor had started (queued, made by the simulator, or still waiting in the vendor's queue: fal `IN_QUEUE`, Replicate `starting`). An item the vendor was already running is charged by the vendor (so is a request under way to a synchronous vendor, whose submit is the work, or to a vendor with no cancel): the operator’s `CANCEL_REFUND` decides (default `none`: not refunded, and its error says so). `refunded_credits` and `message` say what this cancel refunded and why. Nothing delivered is refunded: items that finished first keep their result and charge, and so does an item whose result file is already being stored (a URL handed out at creation, such as `model_url`). A generation with nothing left to cancel answers 409 `generation_finished`, saying whether its work completed. Answers the status record.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            completed_items: number;
                            /** @description Net charge: what was charged minus refunds of failed items */
                            credits_used: number;
                            /** @description When its result files are deleted (MEDIA_RETENTION_DAYS); after it their URLs answer 410. Null: kept */
                            expires_at: string | null;
                            failed_items: number;
                            generation_id: string;
                            items: {
                                /**
                                 * Format: date-time
                                 * @example 2026-11-22T01:22:07.123Z
                                 */
                                created_at: string;
                                /** @description Why the item failed (what the vendor said, when a vendor did); null unless FAILED */
                                error: string | null;
                                id: string;
                                /** @description How far the work is, 0-1: 0 while QUEUED, what the vendor reports while PROCESSING, 1 once COMPLETED */
                                progress: number;
                                /** @description 'simulator' when the service's built-in simulator made (or is making) this item in place of the model's vendor: a stand-in file of the requested shape, not the model's output; null otherwise */
                                provider: "simulator" | null;
                                /** @description The item's place in the vendor's queue while it waits there; null when unknown or finished */
                                queue_position: number | null;
                                /** @enum {unknown} */
                                status: "QUEUED" | "PROCESSING" | "COMPLETED" | "FAILED";
                                /** @example image */
                                type: string;
                                /**
                                 * Format: date-time
                                 * @example 2026-11-22T01:22:07.123Z
                                 */
                                updated_at: string;
                                /** @description Set once the item is COMPLETED */
                                url: string | null;
                            }[];
                            /** @description What the cancel did, plainly: what was refunded, and what was not, and why */
                            message: string;
                            /** @description What this cancel refunded (work a vendor was already running may not be: see message) */
                            refunded_credits: number;
                            /** @description Results of completed items */
                            result_urls: string[];
                            /** @enum {unknown} */
                            status: "queued" | "processing" | "completed" | "failed";
                            total_items: number;
                        };
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A request with this Idempotency-Key is still in flight (`idempotency_conflict`) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/generations/{id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Live status of a generation (Server-Sent Events)
         * @description A `text/event-stream`: an event `status` whose data is the status record, at once and then on every change (item progress included), whichever process made it; the stream ends after the record whose status is completed or failed. A comment keeps an idle stream open (every 15 s by default). Each event's id stands for its record: reconnect with `Last-Event-ID` and you get the record at once if it changed meanwhile, or nothing until it changes. Another team’s generation is 404. A team holds at most EVENTS_MAX_STREAMS_PER_TEAM streams open on a server (200 by default), a server at most EVENTS_MAX_STREAMS; past either the answer is 429 `rate_limited` with Retry-After.
         */
        get: {
            parameters: {
                query?: never;
                header?: {
                    "last-event-id"?: string;
                };
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description text/event-stream */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": string;
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/generations/{id}/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Status of any generation
         * @description Poll every 2-5 s until status is completed or failed. Another team’s generation is 404, like an unknown one.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            completed_items: number;
                            /** @description Net charge: what was charged minus refunds of failed items */
                            credits_used: number;
                            /** @description When its result files are deleted (MEDIA_RETENTION_DAYS); after it their URLs answer 410. Null: kept */
                            expires_at: string | null;
                            failed_items: number;
                            generation_id: string;
                            items: {
                                /**
                                 * Format: date-time
                                 * @example 2026-11-22T01:22:07.123Z
                                 */
                                created_at: string;
                                /** @description Why the item failed (what the vendor said, when a vendor did); null unless FAILED */
                                error: string | null;
                                id: string;
                                /** @description How far the work is, 0-1: 0 while QUEUED, what the vendor reports while PROCESSING, 1 once COMPLETED */
                                progress: number;
                                /** @description 'simulator' when the service's built-in simulator made (or is making) this item in place of the model's vendor: a stand-in file of the requested shape, not the model's output; null otherwise */
                                provider: "simulator" | null;
                                /** @description The item's place in the vendor's queue while it waits there; null when unknown or finished */
                                queue_position: number | null;
                                /** @enum {unknown} */
                                status: "QUEUED" | "PROCESSING" | "COMPLETED" | "FAILED";
                                /** @example image */
                                type: string;
                                /**
                                 * Format: date-time
                                 * @example 2026-11-22T01:22:07.123Z
                                 */
                                updated_at: string;
                                /** @description Set once the item is COMPLETED */
                                url: string | null;
                            }[];
                            /** @description Results of completed items */
                            result_urls: string[];
                            /** @enum {unknown} */
                            status: "queued" | "processing" | "completed" | "failed";
                            total_items: number;
                        };
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/images/edit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Edit an image from a text prompt
         * @description Asynchronous. `width` and `height` go together; they are honoured only by models with custom dimensions and ignored by the others (the result then keeps the source image’s proportions).
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Same key and body within 24 h replays the first response without a second charge */
                    "idempotency-key"?: string;
                    /** @description `dry-run`: validate and price the request, answer `{credits, balance, items, estimated_seconds}` (with `Preference-Applied: dry-run`), and write and charge nothing */
                    prefer?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        additional_images?: string[];
                        /** @description With width */
                        height?: number;
                        /**
                         * Format: uri
                         * @description The image to edit
                         */
                        image_url: string;
                        model?: string;
                        prompt: string;
                        /**
                         * Format: uri
                         * @description Receives a signed POST when the generation completes or fails
                         */
                        webhook?: string;
                        /** @description With height; honoured only by models with custom dimensions */
                        width?: number;
                        /** @description Assigns the result to a workspace of your team (404 unknown, 403 another team) */
                        workspace_id?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            credits_used: number;
                            estimated_time: number;
                            generation_id: string;
                            /** @description Id of the edited image item in the status record */
                            image_id: string;
                            /** @example queued */
                            status: string;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not enough credits (`insufficient_credits`) */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The workspace belongs to another team, or the model is not open to this team (`forbidden`) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A request with this Idempotency-Key is still in flight (`idempotency_conflict`) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rejected content (`media_rejected`, `idempotency_mismatch`) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/images/generate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Generate images (text-to-image, or image-to-image with images / init_image)
         * @description Asynchronous: answers with a generation_id in status queued; poll GET /api/v1/generations/{id}/status. With `images` (or the legacy `init_image`, used only when `images` is absent) the model works image-to-image. With `influencer_id` the in-house influencer model renders that influencer (which must be ready) whatever `model` says, at 8 credits per image. `lora_url` is accepted only by models with supports_lora; `lora_type` defaults to flux-1-dev. Costs the model's credits_per_image times batch.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Same key and body within 24 h replays the first response without a second charge */
                    "idempotency-key"?: string;
                    /** @description `dry-run`: validate and price the request, answer `{credits, balance, items, estimated_seconds}` (with `Preference-Applied: dry-run`), and write and charge nothing */
                    prefer?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @default 1 */
                        batch?: number;
                        images?: string[];
                        influencer_id?: string;
                        /**
                         * Format: uri
                         * @description Legacy single reference image; prefer images
                         */
                        init_image?: string;
                        /**
                         * @description Default flux-1-dev when lora_url is given
                         * @enum {unknown}
                         */
                        lora_type?: "sd-1.5" | "sdxl" | "pony" | "flux-1-dev" | "flux-1-schnell" | "qwen-image";
                        /**
                         * Format: uri
                         * @description URL of a .safetensors LoRA; only for models with supports_lora
                         */
                        lora_url?: string;
                        /** @description See GET /api/v1/models/images */
                        model?: string;
                        negative_prompt?: string;
                        prompt: string;
                        settings?: {
                            /**
                             * @description One of the model's aspect_ratios
                             * @default 1:1
                             */
                            aspect_ratio?: string;
                            /** @description Default 28 (or the model's maximum when lower) */
                            num_inference_steps?: number;
                        };
                        /**
                         * Format: uri
                         * @description Receives a signed POST when the generation completes or fails
                         */
                        webhook?: string;
                        /** @description Assigns the result to a workspace of your team (404 unknown, 403 another team) */
                        workspace_id?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            credits_used: number;
                            /** @description Seconds */
                            estimated_time: number;
                            generation_id: string;
                            /** @description Empty while queued; see the status endpoint */
                            images: string[];
                            /** @example queued */
                            status: string;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not enough credits (`insufficient_credits`) */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The workspace belongs to another team, or the model is not open to this team (`forbidden`) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A request with this Idempotency-Key is still in flight (`idempotency_conflict`) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rejected content (`media_rejected`, `idempotency_mismatch`) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/images/generate-face": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Generate face images, each by a different model
         * @description Asynchronous. `batch` (1-10, default 4) images, each from a different face model; the same `seed` gives the same faces. Costs the sum of the chosen models’ credits_per_image.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Same key and body within 24 h replays the first response without a second charge */
                    "idempotency-key"?: string;
                    /** @description `dry-run`: validate and price the request, answer `{credits, balance, items, estimated_seconds}` (with `Preference-Applied: dry-run`), and write and charge nothing */
                    prefer?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /**
                         * @description Each image by a different model
                         * @default 4
                         */
                        batch?: number;
                        ethnicity?: string;
                        gender?: string;
                        hair_color?: string;
                        negative_prompt?: string;
                        prompt: string;
                        /** @description Same seed, same faces */
                        seed?: number;
                        /** @description Assigns the result to a workspace of your team (404 unknown, 403 another team) */
                        workspace_id?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            batch: number;
                            credits_used: number;
                            estimated_time: number;
                            generation_id: string;
                            /** @example queued */
                            status: string;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not enough credits (`insufficient_credits`) */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The workspace belongs to another team, or the model is not open to this team (`forbidden`) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A request with this Idempotency-Key is still in flight (`idempotency_conflict`) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rejected content (`media_rejected`, `idempotency_mismatch`) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/influencers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the team's influencers */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Influencer"][];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/influencers/create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create (train) an influencer from 1-20 images
         * @description Costs 250 credits. Every image is fetched and decoded (a URL that is not a decodable image is a 400 naming it) and analysed: orientation, size, the subject’s extent in the frame, framing (full body, half body, close-up), pose, brightness, dominant colour and sharpness. The first image becomes face_image; best_full_image is the image with the highest score: full-body framing first, then the subject’s height in the frame, a portrait frame, resolution and sharpness (the earliest wins a tie). The influencer starts in training; a training job makes it ready (status completed). Names are unique within a team; one is generated when absent.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Same key and body within 24 h replays the first response without a second charge */
                    "idempotency-key"?: string;
                    /** @description `dry-run`: validate and price the request, answer `{credits, balance, items, estimated_seconds}` (with `Preference-Applied: dry-run`), and write and charge nothing */
                    prefer?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /**
                         * @description 18 or more
                         * @default 25
                         */
                        age?: number;
                        image_urls: string[];
                        /** @description Auto-generated when absent */
                        name?: string;
                        /** @description Assigns the result to a workspace of your team (404 unknown, 403 another team) */
                        workspace_id?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            credits_used: number;
                            influencer_id: string;
                            name: string;
                            ready_for_generation: boolean;
                            /** @example training */
                            status: string;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not enough credits (`insufficient_credits`) */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The workspace belongs to another team, or the model is not open to this team (`forbidden`) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A request with this Idempotency-Key is still in flight (`idempotency_conflict`) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rejected content (`media_rejected`, `idempotency_mismatch`) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/influencers/generate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Generate images of a trained influencer
         * @description Asynchronous. The influencer must exist (404) and be ready (400 influencer_not_ready). The result composes the influencer’s face with the outfit, location, pose and product images given. With lora_url the LoRA flow is used (lora_type default flux-1-dev). Costs 8 credits per image (12 with LoRA); batch 1-4.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Same key and body within 24 h replays the first response without a second charge */
                    "idempotency-key"?: string;
                    /** @description `dry-run`: validate and price the request, answer `{credits, balance, items, estimated_seconds}` (with `Preference-Applied: dry-run`), and write and charge nothing */
                    prefer?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Default 1 */
                        batch?: number;
                        /**
                         * @description Default 'pro'
                         * @enum {unknown}
                         */
                        camera_style?: "pro" | "smartphone";
                        influencer_id: string;
                        /**
                         * Format: uri
                         * @description Background setting
                         */
                        location_image?: string;
                        /** @enum {unknown} */
                        lora_type?: "sd-1.5" | "sdxl" | "pony" | "flux-1-dev" | "flux-1-schnell" | "qwen-image";
                        /** Format: uri */
                        lora_url?: string;
                        /**
                         * Format: uri
                         * @description Outfit the influencer wears
                         */
                        outfit_image?: string;
                        /**
                         * Format: uri
                         * @description Product placed in the scene
                         */
                        product_image?: string;
                        prompt?: string;
                        /**
                         * Format: uri
                         * @description Pose to match
                         */
                        reference_pose_image?: string;
                        settings?: {
                            /** @description Default '1:1' */
                            aspect_ratio?: string;
                        };
                        /** @description Assigns the result to a workspace of your team (404 unknown, 403 another team) */
                        workspace_id?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            credits_used: number;
                            /** @description Seconds */
                            estimated_time: number;
                            generation_id: string;
                            images: string[];
                            /** @example queued */
                            status: string;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not enough credits (`insufficient_credits`) */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The workspace belongs to another team, or the model is not open to this team (`forbidden`) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A request with this Idempotency-Key is still in flight (`idempotency_conflict`) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rejected content (`media_rejected`, `idempotency_mismatch`) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/influencers/video": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Generate a video of a trained influencer
         * @description Plans the shot from the concept (and dialog): an opening and a closing frame, rendered before the answer (first_frame_url, last_frame_url), then the video with audio (video_url is null while it is pending; the status endpoint carries the final URL). The length follows the dialog (about 2.5 words a second, 4-15 s; 8 s without dialog). When the influencer has a voice, the audio is converted to its most recent voice (has_voice_conversion true). Costs 30 credits per second, of which 8 for each frame: the frames are delivered with the answer and stay charged whatever becomes of the video (a cancel or a failure of the video refunds the rest).
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Same key and body within 24 h replays the first response without a second charge */
                    "idempotency-key"?: string;
                    /** @description `dry-run`: validate and price the request, answer `{credits, balance, items, estimated_seconds}` (with `Preference-Applied: dry-run`), and write and charge nothing */
                    prefer?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /**
                         * @description Default '9:16'
                         * @enum {unknown}
                         */
                        aspect_ratio?: "16:9" | "9:16";
                        /** @description Script for audio context and motion planning */
                        dialog?: string;
                        influencer_id: string;
                        /**
                         * Format: uri
                         * @description Location image
                         */
                        location_image?: string;
                        /**
                         * Format: uri
                         * @description Outfit image
                         */
                        outfit_image?: string;
                        /**
                         * Format: uri
                         * @description Product image
                         */
                        product_image?: string;
                        prompt: string;
                        /** @description Assigns the result to a workspace of your team (404 unknown, 403 another team) */
                        workspace_id?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            credits_used: number;
                            estimated_time: number;
                            /** Format: uri */
                            first_frame_url: string;
                            generation_id: string;
                            has_voice_conversion: boolean;
                            /** Format: uri */
                            last_frame_url: string;
                            /** @example queued */
                            status: string;
                            /** @description Null while the video is pending; the status endpoint carries the final URL */
                            video_url: string | null;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not enough credits (`insufficient_credits`) */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The workspace belongs to another team, or the model is not open to this team (`forbidden`) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A request with this Idempotency-Key is still in flight (`idempotency_conflict`) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rejected content (`media_rejected`, `idempotency_mismatch`) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Every model of every kind, with the endpoint that takes it, its settings and its price
         * @description An extension beside the two lists of the contract. kind is one of image, edit, face, video, lipsync, reference_video, talking_head, upscale, music, model_3d, text, voice; ?kind= keeps one. An id may be listed under two kinds (an image and an edit model, say), as two entries. endpoint is the method and path that takes the model, field the request field that names it (null when the endpoint picks it itself). price is what that endpoint charges: credits per unit, or by the value of what `by` names; a total is rounded up to a whole credit, at least 1.
         */
        get: {
            parameters: {
                query?: {
                    /** @description Only the models of this kind */
                    kind?: "image" | "edit" | "face" | "video" | "lipsync" | "reference_video" | "talking_head" | "upscale" | "music" | "model_3d" | "text" | "voice";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["ModelListEntry"][];
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/models-3d/generate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Generate a 3D model (GLB)
         * @description Asynchronous. model_url is the GLB’s final URL (it answers once the generation has completed). Its face count is within 10% of target_polycount; 'quad' topology counts quads. should_remesh false keeps the raw triangle mesh (topology and polycount are then not applied). Costs the model’s preview or full price.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Same key and body within 24 h replays the first response without a second charge */
                    "idempotency-key"?: string;
                    /** @description `dry-run`: validate and price the request, answer `{credits, balance, items, estimated_seconds}` (with `Preference-Applied: dry-run`), and write and charge nothing */
                    prefer?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /**
                         * Format: uri
                         * @description Image-to-3D
                         */
                        init_image?: string;
                        model?: string;
                        prompt: string;
                        settings?: {
                            /**
                             * @description Default 'realistic'
                             * @enum {unknown}
                             */
                            art_style?: "realistic" | "sculpture";
                            /** @description Default false */
                            enable_pbr?: boolean;
                            /** @description Default false */
                            enable_prompt_expansion?: boolean;
                            /** @description Default false */
                            is_a_t_pose?: boolean;
                            /**
                             * @description Default 'full'
                             * @enum {unknown}
                             */
                            mode?: "preview" | "full";
                            /** @description Default true */
                            should_remesh?: boolean;
                            /**
                             * @description Default 'auto'
                             * @enum {unknown}
                             */
                            symmetry_mode?: "auto" | "on" | "off";
                            /** @description Default 30000 */
                            target_polycount?: number;
                            /**
                             * @description Default 'triangle'; 'quad' for rigging
                             * @enum {unknown}
                             */
                            topology?: "triangle" | "quad";
                        };
                        /**
                         * Format: uri
                         * @description Receives a signed POST when the generation completes or fails
                         */
                        webhook?: string;
                        /** @description Assigns the result to a workspace of your team (404 unknown, 403 another team) */
                        workspace_id?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            credits_used: number;
                            /** @description Seconds */
                            estimated_time: number;
                            generation_id: string;
                            /**
                             * Format: uri
                             * @description Where the GLB will be once the generation completes
                             */
                            model_url: string;
                            /** @example queued */
                            status: string;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not enough credits (`insufficient_credits`) */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The workspace belongs to another team, or the model is not open to this team (`forbidden`) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A request with this Idempotency-Key is still in flight (`idempotency_conflict`) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rejected content (`media_rejected`, `idempotency_mismatch`) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/models/images": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Image, edit and face models with capabilities, settings, price and LoRA support */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ImageModelEntry"][];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/models/videos": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Video, lip sync, talking-head, reference-to-video and upscaling models */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["VideoModelEntry"][];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/music": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the team's music tracks */
        get: {
            parameters: {
                query?: {
                    /** @description Assigns the result to a workspace of your team (404 unknown, 403 another team) */
                    workspace_id?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["MusicTrack"][];
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The workspace belongs to another team, or the model is not open to this team (`forbidden`) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/music/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read one music track
         * @description Another team’s track is 404, like an unknown one.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /**
                             * Format: date-time
                             * @example 2026-11-22T01:22:07.123Z
                             */
                            created_at: string;
                            /** @description When its file is deleted (MEDIA_RETENTION_DAYS); then its url answers 410. Null: kept */
                            expires_at: string | null;
                            generation_id: string;
                            id: string;
                            /** @example completed */
                            status: string;
                            style: string;
                            title: string;
                            /** Format: uri */
                            url: string;
                        };
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The workspace belongs to another team, or the model is not open to this team (`forbidden`) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/music/generate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Generate a music track
         * @description Asynchronous: poll the status endpoint; when the generation completes a music track is created (GET /api/v1/music). Sung lyrics set the length (about 2.5 words per second); instrumentals run 60-90 s. Costs the model’s credits_per_track.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Same key and body within 24 h replays the first response without a second charge */
                    "idempotency-key"?: string;
                    /** @description `dry-run`: validate and price the request, answer `{credits, balance, items, estimated_seconds}` (with `Preference-Applied: dry-run`), and write and charge nothing */
                    prefer?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "title": "Rain on the Window",
                     *       "style": "melancholic lo-fi piano",
                     *       "instrumental": true,
                     *       "model": "V4_5PLUS"
                     *     }
                     */
                    "application/json": {
                        /** @description Default false */
                        instrumental?: boolean;
                        /** @description Leave empty for instrumental */
                        lyrics?: string;
                        /**
                         * @description One of V4, V4_5, V4_5PLUS, V4_5ALL, V5; default 'V4_5PLUS'. Another is 400 model_not_found, as on every endpoint
                         * @example V4_5PLUS
                         */
                        model?: string;
                        /** @description Genre description, e.g. "melancholic lo-fi piano" */
                        style?: string;
                        title: string;
                        /** @enum {unknown} */
                        vocal_gender?: "m" | "f";
                        /** @description Assigns the result to a workspace of your team (404 unknown, 403 another team) */
                        workspace_id?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            credits_used: number;
                            /** @description Seconds */
                            estimated_time: number;
                            generation_id: string;
                            /** @example queued */
                            status: string;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not enough credits (`insufficient_credits`) */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The workspace belongs to another team, or the model is not open to this team (`forbidden`) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A request with this Idempotency-Key is still in flight (`idempotency_conflict`) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rejected content (`media_rejected`, `idempotency_mismatch`) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/quote": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * What a generation request would cost, without making it
         * @description Runs the same validation and pricing as the endpoint itself (a generation POST with the header `Prefer: dry-run` does the same) and answers the credits it would charge and your balance; nothing is written or charged. An invalid body answers as the endpoint would (400, 404, ...).
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "endpoint": "/api/v1/images/generate",
                     *       "body": {
                     *         "prompt": "a lighthouse at dawn, watercolor"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The request body to price */
                        body: {
                            [key: string]: unknown;
                        };
                        /**
                         * @description A generation endpoint's path, e.g. /api/v1/videos/generate
                         * @example /api/v1/images/generate
                         */
                        endpoint: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description The team's balance now */
                            balance: number;
                            /** @description What the request would charge */
                            credits: number;
                            estimated_seconds: number;
                            /** @description The outputs it would make */
                            items: number;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The workspace belongs to another team, or the model is not open to this team (`forbidden`) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rejected content (`media_rejected`, `idempotency_mismatch`) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/storyboard": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the team's storyboard projects
         * @description Newest first. Each project carries one summary per scene, by position: the URL of its first frame (the selected image version, else the latest, of the first frame that has one) and of its video (the selected video version, else the latest, of the first shot that has one). `workspace_id` narrows the list to one workspace of the team.
         */
        get: {
            parameters: {
                query?: {
                    /** @description Only the projects of this workspace of your team (404 unknown, 403 another team) */
                    workspace_id?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["StoryboardSummary"][];
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The workspace belongs to another team, or the model is not open to this team (`forbidden`) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/storyboard/{projectId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a storyboard project
         * @description The whole project: outfits, locations and custom elements, then scenes → shots → frames → image versions and shots → video versions, ordered by position and version (oldest first). `image_url` and `video_url` give the current version (the selected one, else the latest). Another team’s project is 404, like an unknown one.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description A storyboard project id (`sb_...`) */
                    projectId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            aspect_ratio: string | null;
                            /**
                             * Format: date-time
                             * @example 2026-11-22T01:22:07.123Z
                             */
                            created_at: string;
                            description: string | null;
                            elements: {
                                description: string | null;
                                id: string;
                                image_urls: string[];
                                name: string;
                            }[];
                            /** @example sb_01jb7m2x4k9q3r5t6v7w8y9z0a */
                            id: string;
                            locations: {
                                description: string | null;
                                id: string;
                                image_urls: string[];
                                name: string;
                            }[];
                            name: string;
                            outfits: {
                                description: string | null;
                                id: string;
                                image_urls: string[];
                                name: string;
                            }[];
                            scene_count: number;
                            /** @description By position */
                            scenes: {
                                description: string | null;
                                id: string;
                                position: number;
                                shots: {
                                    camera: string | null;
                                    description: string | null;
                                    duration_seconds: number | null;
                                    frames: {
                                        id: string;
                                        image_url: string | null;
                                        /** @description Oldest first */
                                        image_versions: {
                                            /**
                                             * Format: date-time
                                             * @example 2026-11-22T01:22:07.123Z
                                             */
                                            created_at: string;
                                            prompt: string | null;
                                            selected: boolean;
                                            /** Format: uri */
                                            url: string;
                                            /** @description 1 is the oldest */
                                            version: number;
                                        }[];
                                        position: number;
                                    }[];
                                    id: string;
                                    position: number;
                                    video_url: string | null;
                                    /** @description Oldest first */
                                    video_versions: {
                                        /**
                                         * Format: date-time
                                         * @example 2026-11-22T01:22:07.123Z
                                         */
                                        created_at: string;
                                        duration_seconds: number | null;
                                        prompt: string | null;
                                        selected: boolean;
                                        /** Format: uri */
                                        url: string;
                                        /** @description 1 is the oldest */
                                        version: number;
                                    }[];
                                }[];
                                title: string;
                            }[];
                            /**
                             * Format: date-time
                             * @example 2026-11-22T01:22:07.123Z
                             */
                            updated_at: string;
                            workspace_id: string | null;
                        };
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/text/generate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Generate text (synchronous)
         * @description Synchronous. The request is charged for its prompt tokens and max_tokens completion tokens at the model’s per-1k-token prices (at least one credit); the unused part is refunded when the answer is back, so credits_used is what the tokens really cost. Token counts come from a real tokenizer.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Same key and body within 24 h replays the first response without a second charge */
                    "idempotency-key"?: string;
                    /** @description `dry-run`: validate and price the request, answer `{credits, balance, items, estimated_seconds}` (with `Preference-Applied: dry-run`), and write and charge nothing */
                    prefer?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description OpenAI chat completion fields (the OpenAI-compatible door's): an OpenAI-compatible route is sent them as they are, `messages` in place of `prompt` and `settings.system_prompt` (which the simulator reads). The simulator honours `stop` and ignores the sampling fields; where it serves the model, tools, JSON modes, log probabilities and n > 1 are refused (400). The charge counts the messages and tool definitions, times n */
                        chat?: {
                            frequency_penalty?: number;
                            logprobs?: boolean;
                            messages: ({
                                /** @enum {unknown} */
                                role: "system" | "developer" | "user" | "assistant" | "tool" | "function";
                            } & {
                                [key: string]: unknown;
                            })[];
                            /** @description Choices; each is charged for */
                            n?: number;
                            parallel_tool_calls?: boolean;
                            presence_penalty?: number;
                            response_format?: {
                                /** @enum {unknown} */
                                type: "text" | "json_object" | "json_schema";
                            } & {
                                [key: string]: unknown;
                            };
                            seed?: number;
                            stop?: string | string[];
                            tool_choice?: unknown;
                            tools?: {
                                [key: string]: unknown;
                            }[];
                            top_logprobs?: number;
                            top_p?: number;
                        };
                        model?: string;
                        prompt: string;
                        settings?: {
                            /** @description Default 16000 */
                            max_tokens?: number;
                            system_prompt?: string;
                            /** @description Default 0.7 */
                            temperature?: number;
                        };
                        /** @description true: answer `text/event-stream` as the text comes: `event: delta` with `{text}` pieces, then `event: done` with this endpoint's usual answer (or `event: error` with an error body). Errors found before the text starts are answered as usual; a client that leaves stops the route’s call and is charged what it reported (the bound when nothing). A replay of its Idempotency-Key answers the usual JSON */
                        stream?: boolean;
                        /** @description Assigns the result to a workspace of your team (404 unknown, 403 another team) */
                        workspace_id?: string;
                    };
                };
            };
            responses: {
                /** @description The answer; with `stream: true`, Server-Sent Events as it comes (see the body’s `stream`) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Net charge after the unused part is refunded */
                            credits_used: number;
                            generation_id: string;
                            /** @description The model used */
                            model: string;
                            text: string;
                            usage: {
                                completion_tokens: number;
                                prompt_tokens: number;
                                total_tokens: number;
                            };
                        };
                        "text/event-stream": string;
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not enough credits (`insufficient_credits`) */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The workspace belongs to another team, or the model is not open to this team (`forbidden`) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A request with this Idempotency-Key is still in flight (`idempotency_conflict`) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rejected content (`media_rejected`, `idempotency_mismatch`) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Generation failed or internal error */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/videos/generate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Generate a video (text-to-video, or image-to-video with first_frame_image)
         * @description Asynchronous. Each model states its aspect ratios and durations (GET /api/v1/models/videos); others are a 400 naming the allowed values. The default duration is 5 s, or the model’s own default where 5 s is not offered. settings.provider, quality and remove_watermark apply to the provider family only (ignored otherwise); that family costs 40 credits/s at 720p (quality basic) and 90 credits/s at 1080p (quality high); other models cost their credits_per_second.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Same key and body within 24 h replays the first response without a second charge */
                    "idempotency-key"?: string;
                    /** @description `dry-run`: validate and price the request, answer `{credits, balance, items, estimated_seconds}` (with `Preference-Applied: dry-run`), and write and charge nothing */
                    prefer?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /**
                         * Format: uri
                         * @description Image-to-video: the first frame
                         */
                        first_frame_image?: string;
                        /** @description See GET /api/v1/models/videos */
                        model?: string;
                        prompt: string;
                        settings?: {
                            /**
                             * @description Default '16:9'
                             * @enum {unknown}
                             */
                            aspect_ratio?: "16:9" | "9:16" | "1:1" | "4:3" | "3:4";
                            /** @description Seconds; default 5 (or the model’s default) */
                            duration?: number;
                            /** @description Provider family only; default its first provider */
                            provider?: string;
                            /**
                             * @description Provider family only: 'basic' 720p, 'high' 1080p (default)
                             * @enum {unknown}
                             */
                            quality?: "basic" | "high";
                            /** @description Provider family only; default true */
                            remove_watermark?: boolean;
                        };
                        /**
                         * Format: uri
                         * @description Receives a signed POST when the generation completes or fails
                         */
                        webhook?: string;
                        /** @description Assigns the result to a workspace of your team (404 unknown, 403 another team) */
                        workspace_id?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            credits_used: number;
                            /** @description Seconds */
                            estimated_time: number;
                            generation_id: string;
                            /** @example queued */
                            status: string;
                            /** @description Empty while queued; see the status endpoint */
                            videos: string[];
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not enough credits (`insufficient_credits`) */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The workspace belongs to another team, or the model is not open to this team (`forbidden`) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A request with this Idempotency-Key is still in flight (`idempotency_conflict`) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rejected content (`media_rejected`, `idempotency_mismatch`) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/videos/lipsync": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sync a video’s mouth movements to an audio track
         * @description Asynchronous. The video is measured when the request arrives: it costs the model’s credits_per_second for each second of video, up to the model’s max_duration_seconds. `generation_id` links the result to an existing generation of yours (404 when unknown); the lip-synced video is a new generation.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Same key and body within 24 h replays the first response without a second charge */
                    "idempotency-key"?: string;
                    /** @description `dry-run`: validate and price the request, answer `{credits, balance, items, estimated_seconds}` (with `Preference-Applied: dry-run`), and write and charge nothing */
                    prefer?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /**
                         * Format: uri
                         * @description The speech to sync to
                         */
                        audio_url: string;
                        /** @description An existing generation of yours this result belongs to */
                        generation_id?: string;
                        /** @description See GET /api/v1/models/videos */
                        model?: string;
                        /**
                         * Format: uri
                         * @description The video whose mouth movements are synced
                         */
                        video_url: string;
                        /** @description Assigns the result to a workspace of your team (404 unknown, 403 another team) */
                        workspace_id?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            credits_used: number;
                            /** @description Seconds */
                            estimated_time: number;
                            generation_id: string;
                            /** @example queued */
                            status: string;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not enough credits (`insufficient_credits`) */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The workspace belongs to another team, or the model is not open to this team (`forbidden`) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A request with this Idempotency-Key is still in flight (`idempotency_conflict`) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rejected content (`media_rejected`, `idempotency_mismatch`) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/videos/motion-control": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Transfer the motion of a reference video to a character image
         * @description Asynchronous. The reference video is measured when the request arrives: at most 30 s with character_orientation 'video' (the default) and 10 s with 'image'. `element` (a face element, @Element1 in the prompt) requires orientation 'video'. Costs 14 credits per second of reference.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Same key and body within 24 h replays the first response without a second charge */
                    "idempotency-key"?: string;
                    /** @description `dry-run`: validate and price the request, answer `{credits, balance, items, estimated_seconds}` (with `Preference-Applied: dry-run`), and write and charge nothing */
                    prefer?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /**
                         * @description Default 'video'
                         * @enum {unknown}
                         */
                        character_orientation?: "video" | "image";
                        element?: {
                            /**
                             * Format: uri
                             * @description Frontal image of the character or object
                             */
                            frontal_image_url: string;
                            reference_image_urls?: string[];
                        };
                        /**
                         * Format: uri
                         * @description Character image
                         */
                        image_url: string;
                        /** @description May reference the element as @Element1 */
                        prompt?: string;
                        /**
                         * Format: uri
                         * @description Reference motion video (≤ 30 s for orientation video, ≤ 10 s for image)
                         */
                        video_url: string;
                        /** @description Assigns the result to a workspace of your team (404 unknown, 403 another team) */
                        workspace_id?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Seconds */
                            estimated_time: number;
                            generation_id: string;
                            /** @example queued */
                            status: string;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not enough credits (`insufficient_credits`) */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The workspace belongs to another team, or the model is not open to this team (`forbidden`) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A request with this Idempotency-Key is still in flight (`idempotency_conflict`) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rejected content (`media_rejected`, `idempotency_mismatch`) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/videos/reference-to-video": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Video from reference images and text (@ElementN, @ImageN)
         * @description Asynchronous. Elements are numbered from @Element1, or from @Element2 when influencer_id (then @Element1) is given; image_urls are @Image1 and @Image2. References to elements or images the request does not supply are a 400. The first model renders each multi_prompt segment as its own shot; the others concatenate the segments into one timestamped prompt. `resolution` applies only to models with a resolution choice (default their highest). Costs the model’s credits_per_second times the duration (the segments’ sum with multi_prompt).
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Same key and body within 24 h replays the first response without a second charge */
                    "idempotency-key"?: string;
                    /** @description `dry-run`: validate and price the request, answer `{credits, balance, items, estimated_seconds}` (with `Preference-Applied: dry-run`), and write and charge nothing */
                    prefer?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @enum {unknown} */
                        aspect_ratio?: "16:9" | "9:16" | "1:1" | "4:3" | "3:4";
                        /** @description Seconds; default '5' */
                        duration?: string;
                        elements?: {
                            /**
                             * Format: uri
                             * @description Frontal image
                             */
                            frontal_image_url: string;
                            reference_image_urls: string[];
                        }[];
                        /**
                         * Format: uri
                         * @description Last frame
                         */
                        end_image_url?: string;
                        image_urls?: string[];
                        /** @description Becomes @Element1 */
                        influencer_id?: string;
                        location_image_urls?: string[];
                        /** @description See GET /api/v1/models/videos */
                        model?: string;
                        multi_prompt?: {
                            /** @description Seconds */
                            duration: string;
                            prompt: string;
                        }[];
                        /**
                         * Format: uri
                         * @description Outfit image
                         */
                        outfit_image_url?: string;
                        product_image_urls?: string[];
                        prompt: string;
                        /** @description Only for models with a resolution choice */
                        resolution?: string;
                        script?: string;
                        /**
                         * Format: uri
                         * @description First frame
                         */
                        start_image_url?: string;
                        voice_id?: string;
                        /** @description Assigns the result to a workspace of your team (404 unknown, 403 another team) */
                        workspace_id?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Seconds */
                            estimated_time: number;
                            generation_id: string;
                            /** @example queued */
                            status: string;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not enough credits (`insufficient_credits`) */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The workspace belongs to another team, or the model is not open to this team (`forbidden`) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A request with this Idempotency-Key is still in flight (`idempotency_conflict`) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rejected content (`media_rejected`, `idempotency_mismatch`) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/videos/talking-head": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A talking-head video from a start image and a script or an audio track
         * @description Asynchronous. audio_mode 'generate' (default) voices `script` with the influencer's most recently created voice (influencer_id required on models that need audio); 'upload' takes audio_url. The start image is start_image_url, or a location template (template_id + angle_id, which needs influencer_id), or, on the four sheet-based models (which always need influencer_id), the influencer’s reference sheet. static_camera and camera_motion_prompt apply to sheet-based models only. Costs the model’s credits_per_second times the duration.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Same key and body within 24 h replays the first response without a second charge */
                    "idempotency-key"?: string;
                    /** @description `dry-run`: validate and price the request, answer `{credits, balance, items, estimated_seconds}` (with `Preference-Applied: dry-run`), and write and charge nothing */
                    prefer?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        angle_id?: string;
                        /**
                         * @description Default '9:16'
                         * @enum {unknown}
                         */
                        aspect_ratio?: "9:16" | "16:9";
                        /**
                         * @description Default 'generate'
                         * @enum {unknown}
                         */
                        audio_mode?: "generate" | "upload";
                        audio_settings?: {
                            /**
                             * @description Default 'neutral'
                             * @enum {unknown}
                             */
                            emotion?: "neutral" | "excited" | "happy" | "calm" | "sad" | "angry" | "enthusiastic" | "curious" | "frustrated";
                            /** @description ISO 639-1; default 'en' */
                            language?: string;
                            /** @description Default 1.0 */
                            speed?: number;
                            /** @description Default 1.0 */
                            volume?: number;
                        };
                        /**
                         * Format: uri
                         * @description Required when audio_mode is 'upload'
                         */
                        audio_url?: string;
                        camera_motion_prompt?: string;
                        /** @description Seconds, model-dependent */
                        duration?: string;
                        influencer_id?: string;
                        /** @description See GET /api/v1/models/videos */
                        model?: string;
                        /** @description e.g. 720p; model-dependent */
                        resolution?: string;
                        /** @description Emotion tags like [excited], [calm], [pause:1s] */
                        script?: string;
                        /**
                         * Format: uri
                         * @description First frame; not with template_id
                         */
                        start_image_url?: string;
                        /** @description Sheet-based models only; default true */
                        static_camera?: boolean;
                        template_id?: string;
                        /** @description Assigns the result to a workspace of your team (404 unknown, 403 another team) */
                        workspace_id?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Seconds */
                            estimated_time: number;
                            generation_id: string;
                            /** @example queued */
                            status: string;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not enough credits (`insufficient_credits`) */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The workspace belongs to another team, or the model is not open to this team (`forbidden`) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A request with this Idempotency-Key is still in flight (`idempotency_conflict`) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rejected content (`media_rejected`, `idempotency_mismatch`) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/videos/upscale": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Upscale a video
         * @description Asynchronous. The video is measured when the request arrives. Costs the upscaler’s credits per second at the output resolution tier (input height × factor) times the video’s duration; target_fps (topaz only) doubles it. topaz_video_model, target_fps, h264_output and the effect values are topaz-only; the effect values are not used by the default enhancement model, and softness applies to it only.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Same key and body within 24 h replays the first response without a second charge */
                    "idempotency-key"?: string;
                    /** @description `dry-run`: validate and price the request, answer `{credits, balance, items, estimated_seconds}` (with `Preference-Applied: dry-run`), and write and charge nothing */
                    prefer?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Compression artefact removal; topaz only, not the default model */
                        compression?: number;
                        /** @description Grain; topaz only, not the default model */
                        grain?: number;
                        /** @description topaz only */
                        h264_output?: boolean;
                        /** @description Halo reduction; topaz only, not the default model */
                        halo?: number;
                        /**
                         * @description Default 'topaz'
                         * @enum {unknown}
                         */
                        model?: "topaz" | "seedvr2";
                        /** @description Noise reduction; topaz only, not the default model */
                        noise?: number;
                        /** @enum {unknown} */
                        output_format?: "X264 (.mp4)";
                        /**
                         * @description Default 'high'
                         * @enum {unknown}
                         */
                        output_quality?: "low" | "medium" | "high" | "maximum";
                        /** @description Detail recovery; topaz only, not the default model */
                        recover_detail?: number;
                        /** @description 1 sharpest to 5 softest; the default enhancement model only */
                        softness?: number;
                        /** @description topaz only; doubles the cost */
                        target_fps?: number;
                        /** @description topaz only; default Starlight Precise 2.5 */
                        topaz_video_model?: string;
                        /** @description Default 2 */
                        upscale_factor?: 2 | 4;
                        /**
                         * Format: uri
                         * @description The video to upscale
                         */
                        video_url: string;
                        /** @description Assigns the result to a workspace of your team (404 unknown, 403 another team) */
                        workspace_id?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Seconds */
                            estimated_time: number;
                            generation_id: string;
                            /** @example queued */
                            status: string;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not enough credits (`insufficient_credits`) */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The workspace belongs to another team, or the model is not open to this team (`forbidden`) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A request with this Idempotency-Key is still in flight (`idempotency_conflict`) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rejected content (`media_rejected`, `idempotency_mismatch`) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/videos/upscale/seedvr2": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Upscale with SeedVR2 (deprecated: use POST /api/v1/videos/upscale with model seedvr2)
         * @description Priced per output megapixel: credits_per_output_megapixel × output megapixels × seconds.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Same key and body within 24 h replays the first response without a second charge */
                    "idempotency-key"?: string;
                    /** @description `dry-run`: validate and price the request, answer `{credits, balance, items, estimated_seconds}` (with `Preference-Applied: dry-run`), and write and charge nothing */
                    prefer?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @enum {unknown} */
                        output_format?: "X264 (.mp4)";
                        /** @enum {unknown} */
                        output_quality?: "low" | "medium" | "high" | "maximum";
                        /**
                         * @description 'target' mode
                         * @enum {unknown}
                         */
                        target_resolution?: "720p" | "1080p" | "1440p" | "2160p";
                        /** @description Default 2; 'factor' mode */
                        upscale_factor?: number;
                        /**
                         * @description Default 'factor'
                         * @enum {unknown}
                         */
                        upscale_mode?: "factor" | "target";
                        /**
                         * Format: uri
                         * @description The video to upscale
                         */
                        video_url: string;
                        /** @description Assigns the result to a workspace of your team (404 unknown, 403 another team) */
                        workspace_id?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Seconds */
                            estimated_time: number;
                            generation_id: string;
                            /** @example queued */
                            status: string;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not enough credits (`insufficient_credits`) */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The workspace belongs to another team, or the model is not open to this team (`forbidden`) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A request with this Idempotency-Key is still in flight (`idempotency_conflict`) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rejected content (`media_rejected`, `idempotency_mismatch`) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/videos/upscale/topaz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Upscale with Topaz (deprecated: use POST /api/v1/videos/upscale with model topaz)
         * @description Priced per second by output resolution tier; target_fps doubles the cost. upscale_factor is 1-4 here.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Same key and body within 24 h replays the first response without a second charge */
                    "idempotency-key"?: string;
                    /** @description `dry-run`: validate and price the request, answer `{credits, balance, items, estimated_seconds}` (with `Preference-Applied: dry-run`), and write and charge nothing */
                    prefer?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        h264_output?: boolean;
                        /** @enum {unknown} */
                        output_format?: "X264 (.mp4)";
                        /** @enum {unknown} */
                        output_quality?: "low" | "medium" | "high" | "maximum";
                        /** @description Doubles the cost */
                        target_fps?: number;
                        /**
                         * @description 'target' mode
                         * @enum {unknown}
                         */
                        target_resolution?: "720p" | "1080p" | "1440p" | "2160p";
                        /** @description Default 2; 'factor' mode */
                        upscale_factor?: number;
                        /**
                         * @description Default 'factor'
                         * @enum {unknown}
                         */
                        upscale_mode?: "factor" | "target";
                        /**
                         * Format: uri
                         * @description The video to upscale
                         */
                        video_url: string;
                        /** @description Assigns the result to a workspace of your team (404 unknown, 403 another team) */
                        workspace_id?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Seconds */
                            estimated_time: number;
                            generation_id: string;
                            /** @example queued */
                            status: string;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not enough credits (`insufficient_credits`) */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The workspace belongs to another team, or the model is not open to this team (`forbidden`) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A request with this Idempotency-Key is still in flight (`idempotency_conflict`) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rejected content (`media_rejected`, `idempotency_mismatch`) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/videos/wan-2.2-lora": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Wan 2.2 with LoRA weights (synchronous: answers with the video)
         * @description Synchronous. mode 't2v' or 'i2v' (image_url required). Duration = num_frames / frames_per_second. Costs 6/8/12 credits per second at 480p/580p/720p. When the work fails the answer is 500 generation_failed and the credits are refunded.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Same key and body within 24 h replays the first response without a second charge */
                    "idempotency-key"?: string;
                    /** @description `dry-run`: validate and price the request, answer `{credits, balance, items, estimated_seconds}` (with `Preference-Applied: dry-run`), and write and charge nothing */
                    prefer?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /**
                         * Format: uri
                         * @description Required when mode is 'i2v'
                         */
                        image_url?: string;
                        /** @description For tracking */
                        influencer_id?: string;
                        loras: {
                            /** Format: uri */
                            path: string;
                            scale: number;
                            /**
                             * @description Noise variant; supply both for best results
                             * @enum {unknown}
                             */
                            transformer: "high" | "low";
                        }[];
                        /** @enum {unknown} */
                        mode: "t2v" | "i2v";
                        prompt: string;
                        settings?: {
                            /**
                             * @description Default '16:9'
                             * @enum {unknown}
                             */
                            aspect_ratio?: "16:9" | "9:16" | "1:1";
                            /** @description Default false */
                            enable_prompt_expansion?: boolean;
                            /** @description Default 16 */
                            frames_per_second?: number;
                            /** @description Default 3.5 */
                            guidance_scale?: number;
                            /** @description Default 81 */
                            num_frames?: number;
                            /** @description Default 27 */
                            num_inference_steps?: number;
                            /**
                             * @description Default '720p'
                             * @enum {unknown}
                             */
                            resolution?: "480p" | "580p" | "720p";
                            seed?: number;
                        };
                        /** @description Assigns the result to a workspace of your team (404 unknown, 403 another team) */
                        workspace_id?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            generation_id: string;
                            mode: string;
                            /** Format: uri */
                            video_url: string;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not enough credits (`insufficient_credits`) */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The workspace belongs to another team, or the model is not open to this team (`forbidden`) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A request with this Idempotency-Key is still in flight (`idempotency_conflict`) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rejected content (`media_rejected`, `idempotency_mismatch`) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Generation failed or internal error */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/voices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the team's voices */
        get: {
            parameters: {
                query?: {
                    influencer_id?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Voice"][];
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/voices/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read one voice, with its custom_voice_id */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /**
                             * Format: uri
                             * @description Preview: speech in this voice
                             */
                            audio_url: string;
                            /**
                             * Format: date-time
                             * @example 2026-11-22T01:22:07.123Z
                             */
                            created_at: string;
                            /** @description The voice’s id at the voice provider, for TTS */
                            custom_voice_id: string;
                            description: string | null;
                            /** @description When the preview file is deleted (MEDIA_RETENTION_DAYS); then audio_url answers 410 while the voice still speaks. Null: kept */
                            expires_at: string | null;
                            id: string;
                            influencer_id: string | null;
                            influencer_name: string | null;
                            name: string;
                            /** @enum {unknown} */
                            type: "cloned" | "designed";
                        };
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/voices/generate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a voice by cloning a sample or designing it from a description
         * @description Synchronous. Cloning (100 credits) fetches and decodes the sample (at most 300 s) and measures its pitch and pace; designing (50 credits) builds the voice from the description (words like deep, high, fast, slow, calm, energetic, female, male, whisper shape it). audio_url is a spoken preview in the new voice. The voice id works with POST /api/v2/text-to-speech.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Same key and body within 24 h replays the first response without a second charge */
                    "idempotency-key"?: string;
                    /** @description `dry-run`: validate and price the request, answer `{credits, balance, items, estimated_seconds}` (with `Preference-Applied: dry-run`), and write and charge nothing */
                    prefer?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /**
                         * Format: uri
                         * @description A sample of the voice; required when method is 'clone'
                         */
                        audio_url?: string;
                        /** @description Associates the voice */
                        influencer_id?: string;
                        /** @enum {unknown} */
                        method: "clone" | "design";
                        name?: string;
                        /** @description A description of the voice; required when method is 'design' */
                        prompt?: string;
                        /** @description Assigns the result to a workspace of your team (404 unknown, 403 another team) */
                        workspace_id?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** Format: uri */
                            audio_url: string;
                            credits_used: number;
                            influencer_id: string | null;
                            name: string;
                            /** @example completed */
                            status: string;
                            /** @enum {unknown} */
                            type: "cloned" | "designed";
                            voice_id: string;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not enough credits (`insufficient_credits`) */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The workspace belongs to another team, or the model is not open to this team (`forbidden`) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A request with this Idempotency-Key is still in flight (`idempotency_conflict`) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rejected content (`media_rejected`, `idempotency_mismatch`) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Generation failed or internal error */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The team's webhook deliveries with their attempts, newest first
         * @description One delivery per generation and event, with its latest 50 attempts (time, status code, duration, error, when the next was scheduled). Cursor pagination: pass `next_cursor` as `cursor` for the next (older) page; it is null on the last one. Filters combine; `created_after` and `created_before` are both exclusive. Another team's generation_id gives an empty list.
         */
        get: {
            parameters: {
                query?: {
                    /**
                     * @description Only entries created strictly after this time (to the millisecond, as entries show it)
                     * @example 2026-11-22T00:00:00.000Z
                     */
                    created_after?: string;
                    /**
                     * @description Only entries created strictly before this time
                     * @example 2026-11-23T00:00:00.000Z
                     */
                    created_before?: string;
                    /** @description The `next_cursor` of the page before; absent for the first page */
                    cursor?: string;
                    generation_id?: string;
                    /** @description Entries per page (1-100) */
                    limit?: number;
                    status?: "pending" | "delivered" | "failed";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["WebhookDelivery"][];
                            /** @description Pass as `cursor` for the next (older) page; null on the last page */
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/deliveries/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One webhook delivery, with its attempts and the body it posts
         * @description Another team's delivery is 404, like an unknown one.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Attempts made so far */
                            attempt_count: number;
                            /** @description The latest 50 attempts, oldest first */
                            attempts: {
                                /** @description Attempt number, from 1 */
                                attempt: number;
                                /**
                                 * Format: date-time
                                 * @description When the attempt ended
                                 */
                                created_at: string;
                                /** @description How long the request took, in milliseconds */
                                duration_ms: number;
                                /** @description Why the attempt failed; null when it succeeded */
                                error: string | null;
                                /** @description When the retry after this attempt was scheduled; null when none was */
                                next_attempt_at: string | null;
                                /** @description The HTTP status the receiver answered; null when none came (timeout, refused connection, ...) */
                                status_code: number | null;
                                /**
                                 * @description `schedule`: the first attempt or an automatic retry; `redelivery`: asked for by the team
                                 * @enum {unknown}
                                 */
                                trigger: "schedule" | "redelivery";
                            }[];
                            /**
                             * Format: date-time
                             * @example 2026-11-22T01:22:07.123Z
                             */
                            created_at: string;
                            /** @example generation.completed */
                            event_type: string;
                            generation_id: string;
                            /**
                             * @description Also the `webhook-id` header of every attempt
                             * @example whd_01jb6x3t8h2k9m4n5p6q7r8s9t
                             */
                            id: string;
                            /** @description When the next attempt is due, while pending; null otherwise */
                            next_attempt_at: string | null;
                            /** @description The exact body every attempt posts (the signature covers these bytes); never the secret */
                            payload: string;
                            /**
                             * @description `pending` (an attempt is due or under way), `delivered` (the last attempt got a 2xx), `failed` (the schedule ran out, or a redelivery failed)
                             * @enum {unknown}
                             */
                            status: "pending" | "delivered" | "failed";
                            /**
                             * Format: date-time
                             * @example 2026-11-22T01:22:07.123Z
                             */
                            updated_at: string;
                            /** @description Where it is posted (the `webhook` of the request) */
                            url: string;
                        };
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/deliveries/{id}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a delivery again now
         * @description Queues a new attempt at once, whatever the status: a pending delivery makes its next attempt now (the retry schedule goes on if it fails); a delivered or failed one makes one more attempt, which is not retried (it ends `delivered` or `failed`). While an attempt is under way, the new one follows as soon as it ends. Same body and `webhook-id` (receivers de-duplicate on it), a fresh `webhook-timestamp`, signed with the current secret. Answers 202 with the delivery; another team's delivery is 404. No body (or `{}`).
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Attempts made so far */
                            attempt_count: number;
                            /** @description The latest 50 attempts, oldest first */
                            attempts: {
                                /** @description Attempt number, from 1 */
                                attempt: number;
                                /**
                                 * Format: date-time
                                 * @description When the attempt ended
                                 */
                                created_at: string;
                                /** @description How long the request took, in milliseconds */
                                duration_ms: number;
                                /** @description Why the attempt failed; null when it succeeded */
                                error: string | null;
                                /** @description When the retry after this attempt was scheduled; null when none was */
                                next_attempt_at: string | null;
                                /** @description The HTTP status the receiver answered; null when none came (timeout, refused connection, ...) */
                                status_code: number | null;
                                /**
                                 * @description `schedule`: the first attempt or an automatic retry; `redelivery`: asked for by the team
                                 * @enum {unknown}
                                 */
                                trigger: "schedule" | "redelivery";
                            }[];
                            /**
                             * Format: date-time
                             * @example 2026-11-22T01:22:07.123Z
                             */
                            created_at: string;
                            /** @example generation.completed */
                            event_type: string;
                            generation_id: string;
                            /**
                             * @description Also the `webhook-id` header of every attempt
                             * @example whd_01jb6x3t8h2k9m4n5p6q7r8s9t
                             */
                            id: string;
                            /** @description When the next attempt is due, while pending; null otherwise */
                            next_attempt_at: string | null;
                            /** @description The exact body every attempt posts (the signature covers these bytes); never the secret */
                            payload: string;
                            /**
                             * @description `pending` (an attempt is due or under way), `delivered` (the last attempt got a 2xx), `failed` (the schedule ran out, or a redelivery failed)
                             * @enum {unknown}
                             */
                            status: "pending" | "delivered" | "failed";
                            /**
                             * Format: date-time
                             * @example 2026-11-22T01:22:07.123Z
                             */
                            updated_at: string;
                            /** @description Where it is posted (the `webhook` of the request) */
                            url: string;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The team's webhook signing secret
         * @description Every webhook carries `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">` keyed with the base64 part of this secret (Standard Webhooks: its libraries verify with the secret as given). The answer is not cached (`Cache-Control: no-store`).
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /**
                             * Format: date-time
                             * @description When this secret was made (team creation or rotation)
                             * @example 2026-11-22T01:22:07.123Z
                             */
                            created_at: string;
                            /**
                             * @description The Standard Webhooks signing secret (`whsec_<base64>`) that signs every webhook of the team
                             * @example whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
                             */
                            secret: string;
                        };
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/secret/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Replace the webhook signing secret with a new one
         * @description The old secret stops at once: every attempt made from now on (first attempts, retries of deliveries already pending, redeliveries) is signed with the new secret only; an attempt already on the wire keeps the old signature. A receiver that refuses a signature (any non-2xx) is retried on the usual schedule, and any delivery can be sent again with POST /api/v1/webhooks/deliveries/{id}/redeliver. No body (or `{}`).
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /**
                             * Format: date-time
                             * @description When this secret was made (team creation or rotation)
                             * @example 2026-11-22T01:22:07.123Z
                             */
                            created_at: string;
                            /**
                             * @description The Standard Webhooks signing secret (`whsec_<base64>`) that signs every webhook of the team
                             * @example whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
                             */
                            secret: string;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/workspaces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the team's workspaces */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Workspace"][];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /** Create a workspace */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Display name */
                        name: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /**
                             * Format: date-time
                             * @example 2026-11-22T01:22:07.123Z
                             */
                            created_at: string;
                            id: string;
                            name: string;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/workspaces/{workspace_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read one workspace */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Assigns the result to a workspace of your team (404 unknown, 403 another team) */
                    workspace_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /**
                             * Format: date-time
                             * @example 2026-11-22T01:22:07.123Z
                             */
                            created_at: string;
                            id: string;
                            name: string;
                        };
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The workspace belongs to another team, or the model is not open to this team (`forbidden`) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/text-to-speech": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Speech audio from text (synchronous)
         * @description Synchronous; costs 25 credits per generation. voice_id is a preset (built-in or premium) or a cloned or designed voice of your team; an unknown one is 404. The answer carries the audio URL, its format and duration. emotion: neutral, happy, sad, angry, fearful, disgusted, surprised, excited, calm; output_format: mp3, wav, ogg, flac, aac, pcm. When the work fails the answer is 500 generation_failed and the credits are refunded.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Same key and body within 24 h replays the first response without a second charge */
                    "idempotency-key"?: string;
                    /** @description `dry-run`: validate and price the request, answer `{credits, balance, items, estimated_seconds}` (with `Preference-Applied: dry-run`), and write and charge nothing */
                    prefer?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /**
                         * @description Default 'neutral'
                         * @enum {unknown}
                         */
                        emotion?: "neutral" | "happy" | "sad" | "angry" | "fearful" | "disgusted" | "surprised" | "excited" | "calm";
                        /** @description ISO 639-1; default 'en' */
                        language?: string;
                        /**
                         * @description Default 'mp3'
                         * @enum {unknown}
                         */
                        output_format?: "mp3" | "wav" | "ogg" | "flac" | "aac" | "pcm";
                        /** @description Default 1.0 */
                        speed?: number;
                        text: string;
                        /** @description A preset id or a voice of your team (GET /api/v2/voices) */
                        voice_id: string;
                        /** @description Default 1.0 */
                        volume?: number;
                        /** @description Assigns the result to a workspace of your team (404 unknown, 403 another team) */
                        workspace_id?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** Format: uri */
                            audio_url: string;
                            credits_used: number;
                            duration_seconds: number;
                            generation_id: string;
                            output_format: string;
                            /** @example completed */
                            status: string;
                            voice_id: string;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not enough credits (`insufficient_credits`) */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The workspace belongs to another team, or the model is not open to this team (`forbidden`) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A request with this Idempotency-Key is still in flight (`idempotency_conflict`) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rejected content (`media_rejected`, `idempotency_mismatch`) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Generation failed or internal error */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/voice-clone": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Clone a voice from a sample (the v2 twin of voices/generate with method clone)
         * @description Synchronous. Cloning (100 credits) fetches and decodes the sample (at most 300 s) and measures its pitch and pace; designing (50 credits) builds the voice from the description (words like deep, high, fast, slow, calm, energetic, female, male, whisper shape it). audio_url is a spoken preview in the new voice. The voice id works with POST /api/v2/text-to-speech.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Same key and body within 24 h replays the first response without a second charge */
                    "idempotency-key"?: string;
                    /** @description `dry-run`: validate and price the request, answer `{credits, balance, items, estimated_seconds}` (with `Preference-Applied: dry-run`), and write and charge nothing */
                    prefer?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /**
                         * Format: uri
                         * @description A sample of the voice
                         */
                        audio_url: string;
                        description?: string;
                        /** @description Associates the voice */
                        influencer_id?: string;
                        name?: string;
                        /** @description Assigns the result to a workspace of your team (404 unknown, 403 another team) */
                        workspace_id?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** Format: uri */
                            audio_url: string;
                            credits_used: number;
                            influencer_id: string | null;
                            name: string;
                            /** @example completed */
                            status: string;
                            /** @enum {unknown} */
                            type: "cloned" | "designed";
                            voice_id: string;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not enough credits (`insufficient_credits`) */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The workspace belongs to another team, or the model is not open to this team (`forbidden`) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A request with this Idempotency-Key is still in flight (`idempotency_conflict`) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rejected content (`media_rejected`, `idempotency_mismatch`) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Generation failed or internal error */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/voice-design": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Design a voice from a description (the v2 twin of voices/generate with method design)
         * @description Synchronous. Cloning (100 credits) fetches and decodes the sample (at most 300 s) and measures its pitch and pace; designing (50 credits) builds the voice from the description (words like deep, high, fast, slow, calm, energetic, female, male, whisper shape it). audio_url is a spoken preview in the new voice. The voice id works with POST /api/v2/text-to-speech.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Same key and body within 24 h replays the first response without a second charge */
                    "idempotency-key"?: string;
                    /** @description `dry-run`: validate and price the request, answer `{credits, balance, items, estimated_seconds}` (with `Preference-Applied: dry-run`), and write and charge nothing */
                    prefer?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Associates the voice */
                        influencer_id?: string;
                        name?: string;
                        /** @description A description of the voice */
                        prompt: string;
                        /** @description Assigns the result to a workspace of your team (404 unknown, 403 another team) */
                        workspace_id?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** Format: uri */
                            audio_url: string;
                            credits_used: number;
                            influencer_id: string | null;
                            name: string;
                            /** @example completed */
                            status: string;
                            /** @enum {unknown} */
                            type: "cloned" | "designed";
                            voice_id: string;
                        };
                    };
                };
                /** @description Invalid request (`invalid_request`, with one `details` entry per bad field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not enough credits (`insufficient_credits`) */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The workspace belongs to another team, or the model is not open to this team (`forbidden`) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A request with this Idempotency-Key is still in flight (`idempotency_conflict`) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rejected content (`media_rejected`, `idempotency_mismatch`) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Generation failed or internal error */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/voices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every voice the team can speak with: its own voices, then the built-in and premium presets */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["V2Voice"][];
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The process is alive */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            status: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The database is reachable */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            status: string;
                        };
                    };
                };
                /** @description The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audio/speech": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Speech audio (OpenAI-compatible), through POST /api/v2/text-to-speech
         * @description Charged exactly as the native endpoint. Answers the audio bytes. `model` is one of tts-1, tts-1-hd, gpt-4o-mini-tts, tts-v2 (the same voice engine); `voice` an OpenAI voice name (mapped to a preset), a preset id or a voice of your team's (unknown: 400); `speed` 0.6-1.5 (400 outside); `response_format` mp3, opus (Ogg Opus), aac, flac, wav, pcm (raw 16-bit mono at 24 kHz) or ogg (Vorbis). `instructions` is ignored. Header `x-generation-id` names the native generation.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Passed to the native endpoint: the same key and body within 24 h replays the first answer without a second charge */
                    "idempotency-key"?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "model": "tts-1",
                     *       "input": "Your video is ready.",
                     *       "voice": "alloy",
                     *       "response_format": "mp3"
                     *     }
                     */
                    "application/json": {
                        input: string;
                        /** @description Accepted and ignored. */
                        instructions?: unknown;
                        /** @example tts-1 */
                        model: string;
                        response_format?: ("mp3" | "opus" | "aac" | "flac" | "wav" | "pcm" | "ogg") | null;
                        speed?: number | null;
                        stream_format?: ("audio" | "sse") | null;
                        /**
                         * @description An OpenAI voice name (mapped to a preset, see docs/openai.md), a preset id or a voice of your team's
                         * @example alloy
                         * @example Wise_Woman
                         */
                        voice: string | ({
                            id: string;
                        } & {
                            [key: string]: unknown;
                        });
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            responses: {
                /** @description The audio, in the content type of its format */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "audio/aac": string;
                        "audio/flac": string;
                        "audio/mpeg": string;
                        "audio/ogg": string;
                        "audio/ogg; codecs=opus": string;
                        "audio/pcm": string;
                        "audio/wav": string;
                    };
                };
                /** @description Invalid request (`invalid_request_error`; `param` names the field, `code` is e.g. `model_not_found`) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (`invalid_api_key`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
                /** @description The workspace belongs to another team */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
                /** @description A request with this Idempotency-Key is still in flight */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
                /** @description Body larger than the limit */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
                /** @description Idempotency-Key reused with another body */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
                /** @description Not enough credits (`insufficient_quota`, with `x-should-retry: false`), or rate limited (`rate_limit_exceeded`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
                /** @description The generation failed (its credits were refunded), or an internal error */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
                /** @description The database cannot be reached right now (with Retry-After) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/chat/completions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Chat completion (OpenAI-compatible), through POST /api/v1/text/generate
         * @description Charged as the native text endpoint: the bound counts the messages and tool definitions (times `n`), the settled charge is the usage the route reports. Messages, tools, tool_choice, parallel_tool_calls, response_format (json_object, json_schema), stop, seed, top_p, penalties, logprobs/top_logprobs and n go as they are to an OpenAI-compatible route and come back in OpenAI’s shapes (tool_calls, refusal, logprobs, several choices); where the simulator serves the model, tools, JSON modes, log probabilities and n > 1 are refused (400). `stream: true` answers `text/event-stream` chunks as the route sends them (tool-call deltas included), ending with `data: [DONE]`; a client that leaves stops the route’s call and is charged what it reported (the bound when it reported nothing). Headers `x-generation-id` (and, unstreamed, `x-credits-used`) name the native generation and its net charge.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Passed to the native endpoint: the same key and body within 24 h replays the first answer without a second charge */
                    "idempotency-key"?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "model": "openai/gpt-4o-mini",
                     *       "messages": [
                     *         {
                     *           "role": "system",
                     *           "content": "You answer in one sentence."
                     *         },
                     *         {
                     *           "role": "user",
                     *           "content": "What is a haiku?"
                     *         }
                     *       ],
                     *       "max_tokens": 200
                     *     }
                     */
                    "application/json": {
                        audio?: unknown | null;
                        frequency_penalty?: number | null;
                        /** @description Accepted and ignored. Legacy functions are not taken. */
                        function_call?: unknown;
                        functions?: unknown[] | null;
                        /** @description Accepted and ignored. */
                        logit_bias?: unknown;
                        logprobs?: boolean | null;
                        max_completion_tokens?: number | null;
                        max_tokens?: number | null;
                        /** @description Sent as they are to an OpenAI-compatible route (tool messages and assistant tool_calls included); the simulator reads them as a system prompt and a transcript (see docs/openai.md). Content parts: text only */
                        messages: ({
                            audio?: unknown | null;
                            content?: (string | ({
                                text?: string;
                                /**
                                 * @description Only `text` parts are taken (text models)
                                 * @example text
                                 */
                                type: string;
                            } & {
                                [key: string]: unknown;
                            })[]) | null;
                            function_call?: unknown | null;
                            name?: string;
                            refusal?: string | null;
                            /** @enum {unknown} */
                            role: "system" | "developer" | "user" | "assistant" | "tool" | "function";
                            tool_call_id?: string;
                            tool_calls?: unknown[];
                        } & {
                            [key: string]: unknown;
                        })[];
                        /** @description Accepted and ignored. */
                        metadata?: unknown;
                        modalities?: string[] | null;
                        /**
                         * @description A text model of GET /v1/models (e.g. `openai/gpt-4o-mini`); a name without its vendor prefix (`gpt-4o-mini`) is taken when exactly one text model has it
                         * @example openai/gpt-4o-mini
                         */
                        model: string;
                        n?: number | null;
                        parallel_tool_calls?: boolean | null;
                        /** @description Accepted and ignored. */
                        prediction?: unknown;
                        presence_penalty?: number | null;
                        /** @description Accepted and ignored. */
                        prompt_cache_key?: unknown;
                        /** @description Accepted and ignored. */
                        reasoning_effort?: unknown;
                        response_format?: ({
                            /**
                             * @description JSON modes: an OpenAI-compatible route only
                             * @example json_object
                             * @enum {unknown}
                             */
                            type: "text" | "json_object" | "json_schema";
                        } & {
                            [key: string]: unknown;
                        }) | null;
                        /** @description Accepted and ignored. */
                        safety_identifier?: unknown;
                        seed?: number | null;
                        /** @description Accepted and ignored. */
                        service_tier?: unknown;
                        stop?: (string | string[]) | null;
                        /** @description Accepted and ignored. */
                        store?: unknown;
                        stream?: boolean | null;
                        stream_options?: ({
                            include_obfuscation?: boolean;
                            include_usage?: boolean;
                        } & {
                            [key: string]: unknown;
                        }) | null;
                        temperature?: number | null;
                        tool_choice?: unknown | null;
                        tools?: {
                            [key: string]: unknown;
                        }[] | null;
                        top_logprobs?: number | null;
                        top_p?: number | null;
                        /** @description Accepted and ignored. */
                        user?: unknown;
                        /** @description Accepted and ignored. */
                        verbosity?: unknown;
                        /** @description Accepted and ignored. */
                        web_search_options?: unknown;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            responses: {
                /** @description A chat.completion, or its chunks as Server-Sent Events when `stream` is true */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            choices: {
                                /** @enum {unknown} */
                                finish_reason: "stop" | "length" | "content_filter" | "tool_calls" | "function_call";
                                index: number;
                                logprobs: unknown | null;
                                message: {
                                    annotations: unknown[];
                                    content: string | null;
                                    refusal: string | null;
                                    /** @enum {string} */
                                    role: "assistant";
                                    tool_calls?: {
                                        function: {
                                            /** @description JSON, as the model wrote it */
                                            arguments: string;
                                            name: string;
                                        };
                                        id: string;
                                        /** @example function */
                                        type: string;
                                    }[];
                                };
                            }[];
                            /** @description Unix seconds */
                            created: number;
                            /**
                             * @description `chatcmpl-` and the generation id
                             * @example chatcmpl-gen_01jb...
                             */
                            id: string;
                            /** @description The catalog text model that answered */
                            model: string;
                            /** @enum {string} */
                            object: "chat.completion";
                            system_fingerprint: null;
                            usage: {
                                completion_tokens: number;
                                prompt_tokens: number;
                                total_tokens: number;
                            };
                        };
                        "text/event-stream": string;
                    };
                };
                /** @description Invalid request (`invalid_request_error`; `param` names the field, `code` is e.g. `model_not_found`) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (`invalid_api_key`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
                /** @description The workspace belongs to another team */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
                /** @description A request with this Idempotency-Key is still in flight */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
                /** @description Body larger than the limit */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
                /** @description Idempotency-Key reused with another body */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
                /** @description Not enough credits (`insufficient_quota`, with `x-should-retry: false`), or rate limited (`rate_limit_exceeded`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
                /** @description The generation failed (its credits were refunded), or an internal error */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
                /** @description The database cannot be reached right now (with Retry-After) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/images/generations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Generate images (OpenAI-compatible), through POST /api/v1/images/generate
         * @description Charged exactly as the native endpoint (`n` is its batch); waits for the generation to finish (at most 10 minutes, then 504 naming the generation) and answers the images as URLs of our storage, or base64 with `response_format: b64_json`. `size` chooses the aspect ratio; `model` is an image model of the catalog (default: the catalog default). Images that failed are left out and refunded; when all fail, 500. Header `x-generation-id` names the native generation, `x-credits-used` its net charge.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Passed to the native endpoint: the same key and body within 24 h replays the first answer without a second charge */
                    "idempotency-key"?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "prompt": "a lighthouse at dawn, watercolor",
                     *       "model": "dall-e-3",
                     *       "n": 1,
                     *       "size": "1024x1024"
                     *     }
                     */
                    "application/json": {
                        /** @description Accepted and ignored. */
                        background?: unknown;
                        model?: string | null;
                        /** @description Accepted and ignored. */
                        moderation?: unknown;
                        n?: number | null;
                        /** @description Accepted and ignored. */
                        output_compression?: unknown;
                        /** @description Accepted and ignored. The file is what the model makes (PNG from the simulator). */
                        output_format?: unknown;
                        /** @description Accepted and ignored. */
                        partial_images?: unknown;
                        /** @description The native endpoint takes up to 4000 */
                        prompt: string;
                        /** @description Accepted and ignored. */
                        quality?: unknown;
                        response_format?: ("url" | "b64_json") | null;
                        size?: string | null;
                        stream?: boolean | null;
                        /** @description Accepted and ignored. */
                        style?: unknown;
                        /** @description Accepted and ignored. */
                        user?: unknown;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Unix seconds */
                            created: number;
                            /** @description The completed images; an image that failed is left out (and refunded) */
                            data: {
                                b64_json?: string;
                                /** Format: uri */
                                url?: string;
                            }[];
                        };
                    };
                };
                /** @description Invalid request (`invalid_request_error`; `param` names the field, `code` is e.g. `model_not_found`) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (`invalid_api_key`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
                /** @description The workspace belongs to another team */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
                /** @description A request with this Idempotency-Key is still in flight */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
                /** @description Body larger than the limit */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
                /** @description Idempotency-Key reused with another body */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
                /** @description Not enough credits (`insufficient_quota`, with `x-should-retry: false`), or rate limited (`rate_limit_exceeded`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
                /** @description The generation failed (its credits were refunded), or an internal error */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
                /** @description The database cannot be reached right now (with Retry-After) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
                /** @description The generation did not finish within the door’s wait (it continues; see the message) */
                504: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The models the OpenAI-compatible door takes
         * @description Text models (for chat completions), image models (for image generations) and speech models (for speech), by the ids the door takes: those this service can make now (GET /api/v1/models says which are available). Voices are listed by GET /api/v2/voices.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @description Unix seconds (when this process loaded the catalog) */
                                created: number;
                                id: string;
                                /** @enum {string} */
                                object: "model";
                                owned_by: string;
                            }[];
                            /** @enum {string} */
                            object: "list";
                        };
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (`invalid_api_key`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
                /** @description Not enough credits (`insufficient_quota`, with `x-should-retry: false`), or rate limited (`rate_limit_exceeded`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
                /** @description The database cannot be reached right now (with Retry-After) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/models/{*}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One model the OpenAI-compatible door takes
         * @description Model ids may contain a slash (`openai/gpt-4o-mini`). An unknown one is 404.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The model id */
                    "*": string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Unix seconds (when this process loaded the catalog) */
                            created: number;
                            id: string;
                            /** @enum {string} */
                            object: "model";
                            owned_by: string;
                        };
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (`invalid_api_key`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
                /** @description Unknown model (GET /v1/models/{model}) or path */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
                /** @description Not enough credits (`insufficient_quota`, with `x-should-retry: false`), or rate limited (`rate_limit_exceeded`, with Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
                /** @description The database cannot be reached right now (with Retry-After) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                code: string | null;
                                message: string;
                                param: string | null;
                                /** @example invalid_request_error */
                                type: string;
                            };
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/providers/{provider}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A vendor's completion webhook (fal.ai: Ed25519-signed) */
        post: {
            parameters: {
                query?: {
                    /** @description The item the job serves, as the URL given to the vendor names it */
                    item?: string;
                    /** @description The item's webhook credential, as the URL given to the vendor carries it */
                    sig?: string;
                };
                header?: never;
                path: {
                    provider: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            received: boolean;
                        };
                    };
                };
                /** @description Missing, malformed, unknown or revoked credential (`unauthorized`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Resource not found (`not_found`) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** ApiKey */
        ApiKey: {
            /**
             * Format: date-time
             * @example 2026-11-22T01:22:07.123Z
             */
            created_at: string;
            id: string;
            name: string | null;
            /** @description First characters of the key, to recognise it */
            prefix: string;
            revoked_at: string | null;
            team_id: string;
        };
        /** AuditEntry */
        AuditEntry: {
            /** @description model.update, model.routes, alias.put, alias.delete, team.update, config.apply; credential.create, credential.update, credential.delete, credential.enable, credential.disable, credential.cool */
            action: string;
            /** @description Who made the change: "admin" (the admin token), "console operator" (the console), "system" (the service itself) */
            actor: string;
            after: unknown;
            at: string;
            before: unknown;
            id: string;
            /** @description What changed: kind:model, alias:<name>, team:<id>, credential:<id> */
            target: string;
        };
        /** CreditPlan */
        CreditPlan: {
            description: string;
            id: string;
            name: string;
            storeId: string;
            variants: {
                active: boolean;
                /** @description ISO 4217 code */
                currency: string;
                id: string;
                /** @description Always 'one_time' for the plans listed */
                interval: string;
                interval_count: number;
                /** @description Price in the smallest unit of the currency (cents) */
                price: number;
            }[];
        };
        /** DesktopProject */
        DesktopProject: {
            /**
             * Format: date-time
             * @example 2026-11-22T01:22:07.123Z
             */
            created_at: string;
            desktop_project_id: string;
            latest_version: number;
            name: string | null;
            /**
             * Format: date-time
             * @description Time of the latest push
             */
            updated_at: string;
            version_count: number;
            workspace_id: string | null;
        };
        /** DesktopProjectVersion */
        DesktopProjectVersion: {
            /**
             * Format: date-time
             * @example 2026-11-22T01:22:07.123Z
             */
            created_at: string;
            size_bytes: number;
            version: number;
        };
        /** Error */
        Error: {
            error: {
                /** @description `insufficient_credits` only: the credits the team has */
                available?: number;
                /**
                 * @description Machine-readable error code
                 * @enum {unknown}
                 */
                code: "invalid_request" | "influencer_not_ready" | "model_not_found" | "unauthorized" | "insufficient_credits" | "forbidden" | "not_found" | "idempotency_conflict" | "generation_finished" | "read_only" | "gone" | "payload_too_large" | "media_rejected" | "idempotency_mismatch" | "rate_limited" | "generation_failed" | "internal_error" | "service_unavailable" | "model_unavailable";
                /** @description One entry per invalid field (validation errors only) */
                details?: {
                    field: string;
                    message: string;
                }[];
                /** @description What went wrong and, where it helps, what to do next */
                message: string;
                /** @description `insufficient_credits` only: the credits the request needs */
                needed?: number;
            };
        };
        /** GenerationHistoryEntry */
        GenerationHistoryEntry: {
            completed_items: number;
            /**
             * Format: date-time
             * @example 2026-11-22T01:22:07.123Z
             */
            created_at: string;
            /** @description Net charge: what was charged minus refunds of failed items */
            credits_used: number;
            /** @description When its result files are deleted (MEDIA_RETENTION_DAYS); after it their URLs answer 410. Null: kept */
            expires_at: string | null;
            failed_items: number;
            generation_id: string;
            items: {
                /**
                 * Format: date-time
                 * @example 2026-11-22T01:22:07.123Z
                 */
                created_at: string;
                /** @description Why the item failed (what the vendor said, when a vendor did); null unless FAILED */
                error: string | null;
                id: string;
                /** @description How far the work is, 0-1: 0 while QUEUED, what the vendor reports while PROCESSING, 1 once COMPLETED */
                progress: number;
                /** @description 'simulator' when the service's built-in simulator made (or is making) this item in place of the model's vendor: a stand-in file of the requested shape, not the model's output; null otherwise */
                provider: "simulator" | null;
                /** @description The item's place in the vendor's queue while it waits there; null when unknown or finished */
                queue_position: number | null;
                /** @enum {unknown} */
                status: "QUEUED" | "PROCESSING" | "COMPLETED" | "FAILED";
                /** @example image */
                type: string;
                /**
                 * Format: date-time
                 * @example 2026-11-22T01:22:07.123Z
                 */
                updated_at: string;
                /** @description Set once the item is COMPLETED */
                url: string | null;
            }[];
            /** @example video */
            kind: string;
            model: string | null;
            /**
             * @description What made it: kind.operation
             * @example video.generate
             */
            operation: string;
            /** @description The first 200 characters of its prompt (or text, script, description) */
            prompt: string | null;
            /** @description Results of completed items */
            result_urls: string[];
            /** @enum {unknown} */
            status: "queued" | "processing" | "completed" | "failed";
            total_items: number;
            workspace_id: string | null;
        };
        /** GenerationStatus */
        GenerationStatus: {
            completed_items: number;
            /** @description Net charge: what was charged minus refunds of failed items */
            credits_used: number;
            /** @description When its result files are deleted (MEDIA_RETENTION_DAYS); after it their URLs answer 410. Null: kept */
            expires_at: string | null;
            failed_items: number;
            generation_id: string;
            items: {
                /**
                 * Format: date-time
                 * @example 2026-11-22T01:22:07.123Z
                 */
                created_at: string;
                /** @description Why the item failed (what the vendor said, when a vendor did); null unless FAILED */
                error: string | null;
                id: string;
                /** @description How far the work is, 0-1: 0 while QUEUED, what the vendor reports while PROCESSING, 1 once COMPLETED */
                progress: number;
                /** @description 'simulator' when the service's built-in simulator made (or is making) this item in place of the model's vendor: a stand-in file of the requested shape, not the model's output; null otherwise */
                provider: "simulator" | null;
                /** @description The item's place in the vendor's queue while it waits there; null when unknown or finished */
                queue_position: number | null;
                /** @enum {unknown} */
                status: "QUEUED" | "PROCESSING" | "COMPLETED" | "FAILED";
                /** @example image */
                type: string;
                /**
                 * Format: date-time
                 * @example 2026-11-22T01:22:07.123Z
                 */
                updated_at: string;
                /** @description Set once the item is COMPLETED */
                url: string | null;
            }[];
            /** @description Results of completed items */
            result_urls: string[];
            /** @enum {unknown} */
            status: "queued" | "processing" | "completed" | "failed";
            total_items: number;
        };
        /** ImageModelEntry */
        ImageModelEntry: {
            capabilities: {
                [key: string]: unknown;
            };
            category: string;
            default: boolean;
            description: string;
            estimated_seconds: number;
            id: string;
            /** @description Present when supports_lora is true */
            lora_types?: string[];
            name: string;
            price: {
                [key: string]: unknown;
            };
            settings: {
                [key: string]: unknown;
            };
            supports_lora: boolean;
            vendor: string;
        };
        /** Influencer */
        Influencer: {
            /**
             * Format: uri
             * @description The best full-body image found by the analysis
             */
            best_full_image: string;
            /**
             * Format: date-time
             * @example 2026-11-22T01:22:07.123Z
             */
            created_at: string;
            /**
             * Format: uri
             * @description The first image supplied at creation (our copy)
             */
            face_image: string;
            id: string;
            name: string;
            ready_for_generation: boolean;
            /** @enum {unknown} */
            training_status: "training" | "completed" | "failed";
        };
        /** LedgerEntry */
        LedgerEntry: {
            /** @description Positive adds credits, negative takes them */
            amount: number;
            balance_after: number;
            /**
             * Format: date-time
             * @example 2026-11-22T01:22:07.123Z
             */
            created_at: string;
            generation_id: string | null;
            id: string;
            /** @enum {unknown} */
            kind: "grant" | "correction" | "charge" | "refund" | "purchase";
            reason: string;
        };
        /** ModelAlias */
        ModelAlias: {
            alias: string;
            created_at: string;
            kind: string;
            model: string;
        };
        /** ModelListEntry */
        ModelListEntry: {
            /** @description Present on an alias the operator made: the model it stands for (a request naming the alias is priced and run as that model) */
            alias_of?: string;
            /** @description Whether this service can make it now: a configured provider serves it, or the operator lets the simulator stand in for it. A request naming a model that is not available answers 503 model_unavailable and charges nothing */
            available: boolean;
            capabilities: {
                [key: string]: unknown;
            };
            /** @description Whether the endpoint uses it when the request names no model */
            default: boolean;
            description: string | null;
            /**
             * @description Method and path of the endpoint that takes it
             * @example POST /api/v1/images/edit
             */
            endpoint: string;
            /** @description The request field that names it; null when the endpoint picks it itself (face models, chosen by seed; models an endpoint is built on) */
            field: ("model" | "voice_id") | null;
            /** @description The model id (the same id may be listed under two kinds) */
            id: string;
            /** @enum {unknown} */
            kind: "image" | "edit" | "face" | "video" | "lipsync" | "reference_video" | "talking_head" | "upscale" | "music" | "model_3d" | "text" | "voice";
            /** @description Display name; the id for models the catalog gives no name */
            name: string;
            price: components["schemas"]["ModelPrice"];
            /** @description What the model accepts, as the catalog has it (aspect ratios, durations, resolutions, steps...) */
            settings: {
                [key: string]: unknown;
            };
            /** @description Whether the service's built-in simulator makes it here (no configured provider serves it): results are stand-in files of the requested shape, and their status records say provider 'simulator' */
            simulator: boolean;
        };
        /**
         * ModelPrice
         * @description The price as the endpoint charges it: credits × units (× multipliers); a request's total is rounded up to a whole credit, and is at least 1
         */
        ModelPrice: {
            /** @description With credits an object: what picks the key: a request field (settings.quality, settings.mode, settings.resolution; lora_url: 'standard' without it, 'lora' with it), 'output_height' (the video's height × upscale_factor, priced at the smallest tier that holds it, the top tier beyond) or 'usage' (prompt tokens at input, completion tokens at output) */
            by?: string;
            /** @description Credits per unit: a number, or an object keyed by the value of what `by` names when that picks the rate */
            credits: number | {
                [key: string]: number;
            };
            /** @description The key of credits that applies when the request names none */
            default?: string;
            /** @description The team's price multiplier, present when it is not 1 and already applied to credits: a price per image, track, 3D model, speech or voice is what each costs the team (rounded up to a whole credit); a rate per second or per 1,000 tokens is shown to the millionth, and a request is charged its list total (rounded up) times the multiplier, rounded up to a whole credit */
            multiplier?: number;
            /** @description Request fields that multiply the price when given, with their factor */
            multipliers?: {
                [key: string]: number;
            };
            /**
             * @description 'image': each image made (a batch of n costs n times); 'second': each second of the video made; 'input_second': each second of the video given in video_url, measured when the request arrives; 'track', '3d_model', 'generation' (one speech), 'voice' (one voice made): each; '1k_tokens': per 1,000 tokens, credits being {input, output} for prompt and completion tokens
             * @enum {unknown}
             */
            unit: "image" | "second" | "input_second" | "track" | "3d_model" | "1k_tokens" | "generation" | "voice";
        };
        /** MusicTrack */
        MusicTrack: {
            /**
             * Format: date-time
             * @example 2026-11-22T01:22:07.123Z
             */
            created_at: string;
            /** @description When its file is deleted (MEDIA_RETENTION_DAYS); then its url answers 410. Null: kept */
            expires_at: string | null;
            generation_id: string;
            id: string;
            /** @example completed */
            status: string;
            style: string;
            title: string;
            /** Format: uri */
            url: string;
        };
        /** ProviderAttempt */
        ProviderAttempt: {
            /** @description When the route's answer with the result was in hand, before its file was copied into our storage and the item settled (completed attempts; null otherwise) */
            answered_at: string | null;
            /** @description What the work cost in US dollars, from the vendor's answer at the operator's rates (docs/operating.md); null when unknown (never 0 for unknown) */
            cost: number | null;
            endpoint: string;
            error: string | null;
            /** @description The failure kind (invalid_input, unavailable, ...) */
            error_kind: string | null;
            finished_at: string | null;
            item_id: string;
            /** @description null while the attempt runs */
            outcome: ("completed" | "failed" | "submit_failed" | "unknown") | null;
            provider: string;
            /**
             * Format: date-time
             * @example 2026-11-22T01:22:07.123Z
             */
            started_at: string;
            vendor_request_id: string | null;
        };
        /** ProviderSummary */
        ProviderSummary: {
            /** @description With ?check=true, for configured providers: one harmless authenticated call (never paid work) */
            check?: {
                /** @description Why not, or what was asked */
                detail: string;
                /** @description Whether it answered our credentials; null when the vendor has no harmless call to ask */
                reachable: boolean | null;
            };
            /** @description Whether its key is set (the simulator always is) */
            configured: boolean;
            /** @example fal */
            id: string;
            /** @description The models this provider has a route for (for the simulator: the models it serves now, those with no configured route that PROVIDERS, SIMULATOR_MODELS or the local start let it serve) */
            routes: {
                /** @description Set while the circuit breaker keeps this route out of use */
                cooling_until: string | null;
                /** @description false: the operator keeps the route in the list but it is never used */
                enabled: boolean;
                /** @description The vendor's endpoint (model id, path) this route sends to */
                endpoint: string;
                /** @description The catalog the model is in (image, edit, face, video, music, ...) */
                kind: string;
                model: string;
                /** @description The route's place in the model's routes (0 is tried first) */
                position: number;
                /** @description override: the operator's live list of the model's routes serves (PUT /admin/v1/models/{kind}/{model}/routes); catalog: the catalog's */
                source: "catalog" | "override";
            }[];
            /** @description Completed attempts over finished attempts in the last 24 hours; null without attempts */
            success_rate: number | null;
        };
        /** StoryboardSummary */
        StoryboardSummary: {
            aspect_ratio: string | null;
            /**
             * Format: date-time
             * @example 2026-11-22T01:22:07.123Z
             */
            created_at: string;
            description: string | null;
            /** @example sb_01jb7m2x4k9q3r5t6v7w8y9z0a */
            id: string;
            name: string;
            scene_count: number;
            /** @description By position */
            scenes: {
                first_frame_url: string | null;
                id: string;
                position: number;
                title: string;
                video_url: string | null;
            }[];
            /**
             * Format: date-time
             * @example 2026-11-22T01:22:07.123Z
             */
            updated_at: string;
            workspace_id: string | null;
        };
        /** Team */
        Team: {
            /** @description kind:model entries; when not empty, the only models the team may use */
            allowed_models: string[];
            /**
             * Format: date-time
             * @example 2026-11-22T01:22:07.123Z
             */
            created_at: string;
            /** @description Current balance */
            credits: number;
            /** @description kind:model entries the team may not use */
            denied_models: string[];
            id: string;
            /** @description Items it runs at once; null: the service default (TEAM_MAX_CONCURRENT_ITEMS) */
            max_concurrent_items: number | null;
            name: string;
            /** @description Every price the team is charged and quoted is multiplied by it */
            price_multiplier: number;
            /** @description Items running now */
            running_items: number;
        };
        /** V2Voice */
        V2Voice: {
            created_at: string | null;
            description: string | null;
            /** @description When the preview file is deleted (MEDIA_RETENTION_DAYS); null: kept, or a preset */
            expires_at: string | null;
            gender: string | null;
            influencer_id: string | null;
            language: string | null;
            name: string;
            preview_url: string | null;
            /** @enum {unknown} */
            type: "builtin" | "premium" | "cloned" | "designed";
            voice_id: string;
        };
        /** VendorCredential */
        VendorCredential: {
            /** @description The vendor API's base URL; null: the vendor's setting */
            base_url: string | null;
            cooling_until: string | null;
            created_at: string | null;
            /** @description cred_…, or env:<provider> for the key its environment variable sets */
            id: string;
            /** @description The most of its jobs at the vendor at once (submitted, not finished); null: no cap */
            max_in_flight: number | null;
            name: string;
            provider: string;
            /** @description Why it is disabled or cooling */
            reason: string | null;
            /** @description The most submits with it in any rolling minute (CREDENTIAL_RPM_WINDOW_S); null: no cap */
            rpm: number | null;
            /** @description The last four characters of the secret (never shown whole again) */
            secret_last4: string;
            /** @description env: read-only */
            source: "api" | "env";
            state: "active" | "cooling" | "disabled";
            /** @description Its share of the submits among the active credentials of its vendor */
            weight: number;
        };
        /** VideoModelEntry */
        VideoModelEntry: {
            capabilities: {
                [key: string]: unknown;
            };
            category: string;
            default: boolean;
            description: string;
            estimated_seconds: number;
            id: string;
            name: string;
            price: {
                [key: string]: unknown;
            };
            /** @description The provider family only: settings.provider values, the first is the default */
            providers?: {
                [key: string]: unknown;
            }[];
            settings: {
                [key: string]: unknown;
            };
            vendor: string;
        };
        /** Voice */
        Voice: {
            /**
             * Format: uri
             * @description Preview: speech in this voice
             */
            audio_url: string;
            /**
             * Format: date-time
             * @example 2026-11-22T01:22:07.123Z
             */
            created_at: string;
            description: string | null;
            /** @description When the preview file is deleted (MEDIA_RETENTION_DAYS); then audio_url answers 410 while the voice still speaks. Null: kept */
            expires_at: string | null;
            id: string;
            influencer_id: string | null;
            influencer_name: string | null;
            name: string;
            /** @enum {unknown} */
            type: "cloned" | "designed";
        };
        /** WebhookDelivery */
        WebhookDelivery: {
            /** @description Attempts made so far */
            attempt_count: number;
            /** @description The latest 50 attempts, oldest first */
            attempts: {
                /** @description Attempt number, from 1 */
                attempt: number;
                /**
                 * Format: date-time
                 * @description When the attempt ended
                 */
                created_at: string;
                /** @description How long the request took, in milliseconds */
                duration_ms: number;
                /** @description Why the attempt failed; null when it succeeded */
                error: string | null;
                /** @description When the retry after this attempt was scheduled; null when none was */
                next_attempt_at: string | null;
                /** @description The HTTP status the receiver answered; null when none came (timeout, refused connection, ...) */
                status_code: number | null;
                /**
                 * @description `schedule`: the first attempt or an automatic retry; `redelivery`: asked for by the team
                 * @enum {unknown}
                 */
                trigger: "schedule" | "redelivery";
            }[];
            /**
             * Format: date-time
             * @example 2026-11-22T01:22:07.123Z
             */
            created_at: string;
            /** @example generation.completed */
            event_type: string;
            generation_id: string;
            /**
             * @description Also the `webhook-id` header of every attempt
             * @example whd_01jb6x3t8h2k9m4n5p6q7r8s9t
             */
            id: string;
            /** @description When the next attempt is due, while pending; null otherwise */
            next_attempt_at: string | null;
            /**
             * @description `pending` (an attempt is due or under way), `delivered` (the last attempt got a 2xx), `failed` (the schedule ran out, or a redelivery failed)
             * @enum {unknown}
             */
            status: "pending" | "delivered" | "failed";
            /**
             * Format: date-time
             * @example 2026-11-22T01:22:07.123Z
             */
            updated_at: string;
            /** @description Where it is posted (the `webhook` of the request) */
            url: string;
        };
        /** Workspace */
        Workspace: {
            /**
             * Format: date-time
             * @example 2026-11-22T01:22:07.123Z
             */
            created_at: string;
            id: string;
            name: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
