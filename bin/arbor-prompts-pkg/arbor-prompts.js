#!/usr/bin/env node
// Installed as a devDependency (file:) so npx finds the command locally; hands over to the repo's launcher.
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS script node runs directly */
'use strict';
require('../arbor-prompts.js');
