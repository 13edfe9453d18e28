export {
  warmStartManifestFile,
  warmStartManifestSchema,
  warmStartModelShapeSchema,
  warmStartPresetSchema,
  type WarmStartManifest,
  type WarmStartPreset,
} from './warm-start-manifest';
