// Liveness, version and namespace facts (reads only the config and the chain).
export { healthRouter } from './router';
