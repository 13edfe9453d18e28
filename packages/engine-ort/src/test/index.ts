export {
  MockPolicyV1,
  MockPolicyV1Tokenizer,
  type MockHandler,
} from './mock-policy-v1';
