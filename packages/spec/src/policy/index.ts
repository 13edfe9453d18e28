export * from './v1';
