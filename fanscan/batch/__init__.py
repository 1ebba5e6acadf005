"""`fanscan batch`: every file of a folder scored into one resumable table, here or on a Dask cluster.

- `files`: the files of the folder, each under the key that names its row;
- `rows`: one photo → one row (read, propose, score), every failure an error row;
- `table`: the table on disk (CSV or JSON Lines), checked and repaired before a resume, appended row by row;
- `lock`: one batch at a time per table;
- `settings`: the settings that made a table's rows, recorded beside it so that a resume never mixes them;
- `progress`: a line (or a JSON object) per photo on stderr;
- `cluster`, `worker`: the Dask backend (the `cluster` extra) and its worker plugin.

The command itself (its flags, the run) is `fanscan.commands.batch`.
"""
