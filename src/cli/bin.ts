#!/usr/bin/env node
import { main } from './program.js';

void main(process.argv);
