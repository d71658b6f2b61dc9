export { WorkUnitErrorCode } from '../../deciders/error-codes.js';
