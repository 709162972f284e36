/**
 * The Swagger tag of the endpoints that exist for the PresQT web client (presqt-ui): our services under the
 * names and paths it calls. Ours keep their own names and paths.
 */
export const CLIENT_ALIASES_TAG = 'presqt-ui aliases';
