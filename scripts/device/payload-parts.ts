/**
 * `payload-parts split FILE DIR [--max-mib N]` (here) and
 * `payload-parts assemble DIR TARGET_DIR` (on the GPU machine): a file larger
 * than one call can carry, in parts under a size limit with a manifest of
 * sizes and SHA-256s, joined and checked on the other side
 * (packages/engine-ort/src/io/payload-parts.ts). Exit 1 with one line on a
 * missing or corrupt part, 2 on bad arguments.
 */
import {
  assembleParts,
  splitIntoParts,
} from '../../packages/engine-ort/src/io/payload-parts';

const [command, first, second] = process.argv.slice(2);
const maxIndex = process.argv.indexOf('--max-mib');
const maxMib = maxIndex < 0 ? 48 : Number(process.argv[maxIndex + 1]);
try {
  if (command === 'split' && first !== undefined && second !== undefined) {
    const manifest = splitIntoParts({
      file: first,
      directory: second,
      maxPartBytes: Math.floor(maxMib * 2 ** 20),
    });
    console.log(
      `${manifest.file}: ${manifest.size} bytes in ${manifest.parts.length} parts of at most ${maxMib} MiB in ${second} (sha256 ${manifest.sha256})`,
    );
  } else if (
    command === 'assemble' &&
    first !== undefined &&
    second !== undefined
  ) {
    const result = assembleParts({ directory: first, targetDirectory: second });
    console.log(
      `assembled ${result.path}: ${result.size} bytes, sha256 ${result.sha256} (every part and the whole checked)`,
    );
  } else {
    console.error(
      'usage: payload-parts split FILE DIR [--max-mib N] | assemble DIR TARGET_DIR',
    );
    process.exit(2);
  }
} catch (error) {
  console.error(`payload-parts: ${(error as Error).message}`);
  process.exit(1);
}
