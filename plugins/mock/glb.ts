/**
 * A small valid glTF 2.0 binary (GLB): one tetrahedron, positions only. Spec: the 12-byte
 * header (`glTF`, version 2, total length), a JSON chunk padded with spaces and a BIN chunk
 * padded with zeros, each to a multiple of 4 bytes.
 */
export function encodeTetrahedronGlb(name: string): Buffer {
  const positions = new Float32Array([0, 1, 0, -1, -1, 1, 1, -1, 1, 0, -1, -1]);
  const indices = new Uint16Array([0, 1, 2, 0, 2, 3, 0, 3, 1, 1, 3, 2]);
  const posBytes = Buffer.from(positions.buffer);
  const idxBytes = Buffer.from(indices.buffer);
  const bin = pad(Buffer.concat([posBytes, idxBytes]), 0);
  const gltf = {
    asset: { version: '2.0', generator: 'gateway mock' },
    scene: 0,
    scenes: [{ nodes: [0] }],
    nodes: [{ mesh: 0, name }],
    meshes: [{ primitives: [{ attributes: { POSITION: 0 }, indices: 1 }] }],
    buffers: [{ byteLength: bin.length }],
    bufferViews: [
      { buffer: 0, byteOffset: 0, byteLength: posBytes.length, target: 34962 },
      { buffer: 0, byteOffset: posBytes.length, byteLength: idxBytes.length, target: 34963 },
    ],
    accessors: [
      { bufferView: 0, componentType: 5126, count: 4, type: 'VEC3', min: [-1, -1, -1], max: [1, 1, 1] },
      { bufferView: 1, componentType: 5123, count: indices.length, type: 'SCALAR' },
    ],
  };
  const json = pad(Buffer.from(JSON.stringify(gltf), 'utf8'), 0x20);
  const header = Buffer.alloc(12);
  header.write('glTF', 0, 'latin1');
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(12 + 8 + json.length + 8 + bin.length, 8);
  return Buffer.concat([header, chunkHead(json.length, 'JSON'), json, chunkHead(bin.length, 'BIN\0'), bin]);
}

function pad(bytes: Buffer, fill: number): Buffer {
  const extra = (4 - (bytes.length % 4)) % 4;
  return extra === 0 ? bytes : Buffer.concat([bytes, Buffer.alloc(extra, fill)]);
}

function chunkHead(length: number, type: string): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32LE(length, 0);
  head.write(type, 4, 'latin1');
  return head;
}
