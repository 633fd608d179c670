export { PersonKeyStore } from './person-keys.js';
export { ERASED, decryptPersonalFields, personalValues, sealedKeyIds } from './personal-fields.js';
export { PersonalDataEventStore } from './personal-data-event-store.js';
export { SnapshotStore } from './state-snapshots.js';
