import protobuf from 'protobufjs';

/**
 * The subset of `onnx.proto` (ONNX IR) that our generated graphs use,
 * declared as a protobufjs reflection descriptor. Field numbers follow the
 * ONNX specification; fields we never write are left out.
 */
const onnxDescriptor = {
  nested: {
    onnx: {
      nested: {
        ModelProto: {
          fields: {
            ir_version: { type: 'int64', id: 1 },
            producer_name: { type: 'string', id: 2 },
            producer_version: { type: 'string', id: 3 },
            graph: { type: 'GraphProto', id: 7 },
            opset_import: {
              rule: 'repeated',
              type: 'OperatorSetIdProto',
              id: 8,
            },
          },
        },
        OperatorSetIdProto: {
          fields: {
            domain: { type: 'string', id: 1 },
            version: { type: 'int64', id: 2 },
          },
        },
        GraphProto: {
          fields: {
            node: { rule: 'repeated', type: 'NodeProto', id: 1 },
            name: { type: 'string', id: 2 },
            initializer: { rule: 'repeated', type: 'TensorProto', id: 5 },
            input: { rule: 'repeated', type: 'ValueInfoProto', id: 11 },
            output: { rule: 'repeated', type: 'ValueInfoProto', id: 12 },
          },
        },
        NodeProto: {
          fields: {
            input: { rule: 'repeated', type: 'string', id: 1 },
            output: { rule: 'repeated', type: 'string', id: 2 },
            name: { type: 'string', id: 3 },
            op_type: { type: 'string', id: 4 },
            attribute: { rule: 'repeated', type: 'AttributeProto', id: 5 },
            domain: { type: 'string', id: 7 },
          },
        },
        AttributeProto: {
          fields: {
            name: { type: 'string', id: 1 },
            f: { type: 'float', id: 2 },
            i: { type: 'int64', id: 3 },
            s: { type: 'bytes', id: 4 },
            t: { type: 'TensorProto', id: 5 },
            floats: { rule: 'repeated', type: 'float', id: 7 },
            ints: { rule: 'repeated', type: 'int64', id: 8 },
            type: { type: 'int32', id: 20 },
          },
        },
        TensorProto: {
          fields: {
            dims: { rule: 'repeated', type: 'int64', id: 1 },
            data_type: { type: 'int32', id: 2 },
            name: { type: 'string', id: 8 },
            raw_data: { type: 'bytes', id: 9 },
          },
        },
        ValueInfoProto: {
          fields: {
            name: { type: 'string', id: 1 },
            type: { type: 'TypeProto', id: 2 },
          },
        },
        TypeProto: {
          fields: {
            tensor_type: { type: 'TypeProtoTensor', id: 1 },
          },
        },
        TypeProtoTensor: {
          fields: {
            elem_type: { type: 'int32', id: 1 },
            shape: { type: 'TensorShapeProto', id: 2 },
          },
        },
        TensorShapeProto: {
          fields: {
            dim: { rule: 'repeated', type: 'TensorShapeDimension', id: 1 },
          },
        },
        TensorShapeDimension: {
          fields: {
            dim_value: { type: 'int64', id: 1 },
            dim_param: { type: 'string', id: 2 },
          },
        },
      },
    },
  },
};

let modelType: protobuf.Type | undefined;

/** The protobufjs type of `onnx.ModelProto`. */
export function onnxModelProtoType(): protobuf.Type {
  modelType ??=
    protobuf.Root.fromJSON(onnxDescriptor).lookupType('onnx.ModelProto');
  return modelType;
}

/** ONNX `TensorProto.DataType` codes of the element types we use. */
export const onnxDataType = {
  float32: 1,
  int32: 6,
  int64: 7,
  bool: 9,
  float16: 10,
  float64: 11,
  bfloat16: 16,
} as const;

/** ONNX `AttributeProto.AttributeType` codes. */
export const onnxAttributeType = {
  FLOAT: 1,
  INT: 2,
  STRING: 3,
  TENSOR: 4,
  FLOATS: 6,
  INTS: 7,
} as const;
