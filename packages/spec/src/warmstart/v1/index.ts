export {
  warmStartCopyFiguresSchema,
  warmStartFiguresFile,
  warmStartFiguresSchema,
  warmStartManifestFile,
  warmStartManifestSchema,
  warmStartModelShapeSchema,
  warmStartPresetSchema,
  type WarmStartFiguresRecord,
  type WarmStartManifest,
  type WarmStartPreset,
} from './warm-start-manifest';
