// Stand-ins for the parts of Flamenco Manager's job compiler runtime that a job type script uses, written
// for these tests from Flamenco's documentation (flamenco.blender.org/usage/job-types/ and its list of
// commands), not from its source, and a harness that compiles one job with them:
//
//   node tests/flamenco_author_stub.js JOB_TYPE_SCRIPT.js SETTINGS.json
//
// prints {"job_type": JOB_TYPE, "settings_read": [keys compileJob read], "tasks": [{name, type, priority,
// commands: [{name, parameters}], dependencies: [task names]}]} as JSON on stdout and exits 0; when
// compiling throws, prints the error's message on stderr and exits 1 (2 for a harness or script problem).
//
// What is mimicked, as the Manager does it:
// - the script runs in strict mode, with `author`, `print` and `alert` as globals;
// - JOB_TYPE and compileJob(job) are looked up by name after the script ran;
// - job.settings holds exactly the submitted settings: the Manager fills in no defaults;
// - author.Task(name, type) refuses an empty name or type, starts with priority 50 and no commands;
// - author.Command(name, parameters[, totalStepCount]) and job.addTask(task) take copies, so changing a
//   command's parameters or a task after handing it over changes nothing;
// - a command name the Worker does not know, or `exec` parameters that are not {exe: string, args:
//   [strings]}, is an error here (the real Manager would only find out on the Worker).
"use strict";

const fs = require("fs");
const vm = require("vm");

const WORKER_COMMANDS = ["echo", "sleep", "exec", "blender-render", "frames-to-video", "move-directory",
    "copy-file", "make-directory"];

function copy(value) {
    return JSON.parse(JSON.stringify(value));
}

function checkExec(parameters) {
    if (typeof parameters.exe !== "string" || parameters.exe === "") {
        throw new Error("exec: parameter \"exe\" must be a non-empty string");
    }
    const args = parameters.args === undefined ? [] : parameters.args;
    if (!Array.isArray(args) || !args.every(function (arg) { return typeof arg === "string"; })) {
        throw new Error("exec: parameter \"args\" must be a list of strings");
    }
}

const author = {
    Task: function (name, type) {
        name = String(name === undefined ? "" : name).trim();
        type = String(type === undefined ? "" : type).trim();
        if (!name) {
            throw new Error("author.Task(name, type): name is required");
        }
        if (!type) {
            throw new Error("author.Task(name, type): type is required");
        }
        const task = {name: name, type: type, priority: 50, commands: [], dependencies: []};
        task.addCommand = function (command) { task.commands.push(copy(command)); };
        task.addDependency = function (other) { task.dependencies.push(other.name); };
        return task;
    },
    Command: function (name, parameters, totalStepCount) {
        if (WORKER_COMMANDS.indexOf(name) < 0) {
            throw new Error("author.Command: no Worker command " + JSON.stringify(name));
        }
        parameters = copy(parameters || {});
        if (name === "exec") {
            checkExec(parameters);
        }
        return {name: name, parameters: parameters, totalStepCount: totalStepCount || 0};
    },
};

// job.settings as a record of what the script reads, so a test can hold the keys it reads to the ones its
// JOB_TYPE declares.
function recordedSettings(settings, read) {
    return new Proxy(settings, {
        get: function (target, key) {
            if (typeof key === "string") {
                read.add(key);
            }
            return target[key];
        },
        has: function (target, key) {
            read.add(String(key));
            return key in target;
        },
    });
}

function load(scriptPath) {
    const context = vm.createContext({
        author: author,
        print: function () { console.error.apply(console, ["print:"].concat(Array.from(arguments))); },
        alert: function () { console.error.apply(console, ["alert:"].concat(Array.from(arguments))); },
    });
    // "use strict" on the script's first line, so its line numbers stay the file's.
    new vm.Script("\"use strict\"; " + fs.readFileSync(scriptPath, "utf8"), {filename: scriptPath})
        .runInContext(context);
    const jobType = vm.runInContext("typeof JOB_TYPE === 'undefined' ? undefined : JOB_TYPE", context);
    const compileJob = vm.runInContext("typeof compileJob === 'undefined' ? undefined : compileJob", context);
    if (jobType === undefined || typeof compileJob !== "function") {
        throw new Error(scriptPath + ": defines no JOB_TYPE object or no compileJob(job) function");
    }
    return {jobType: jobType, compileJob: compileJob};
}

function compile(script, settings) {
    const read = new Set();
    const tasks = [];
    const job = {
        name: "test job",
        priority: 50,
        settings: recordedSettings(settings, read),
        metadata: {},
        addTask: function (task) {
            tasks.push(copy({name: task.name, type: task.type, priority: task.priority, commands: task.commands,
                dependencies: task.dependencies}));
        },
    };
    script.compileJob(job);
    return {job_type: copy(script.jobType), settings_read: Array.from(read).sort(), tasks: tasks};
}

function main(argv) {
    if (argv.length !== 2) {
        console.error("usage: node flamenco_author_stub.js JOB_TYPE_SCRIPT.js SETTINGS.json");
        return 2;
    }
    let script;
    let settings;
    try {
        script = load(argv[0]);
        settings = JSON.parse(fs.readFileSync(argv[1], "utf8"));
    } catch (err) {
        console.error(err && err.stack ? err.stack : String(err));
        return 2;
    }
    let compiled;
    try {
        compiled = compile(script, settings);
    } catch (err) {  // thrown in the script's context: not an instance of this context's Error
        console.error(err && err.message !== undefined ? err.message : String(err));
        return 1;
    }
    process.stdout.write(JSON.stringify(compiled, null, 2) + "\n");
    return 0;
}

process.exitCode = main(process.argv.slice(2));
