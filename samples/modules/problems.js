// The error body the samples answer with, shared through the project file's `modules:`
// (a cell reads it with import_module('problems')).
exports.problem = (code, message) => ({ error: { code, message } });
