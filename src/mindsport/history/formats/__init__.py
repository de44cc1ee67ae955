"""The match file formats, one module each, and the column path they share.

* :mod:`.common`: the error type, the column names, the parsing of one value;
* :mod:`.jsonl`, :mod:`.csv`, :mod:`.parquet`: each format's reader and writer;
* :mod:`.long`: a match from its consecutive rows in the long format (the row path of CSV and
  Parquet);
* :mod:`.columns`: whole files on the column path: every column checked at once, the matches
  built without a check per match; any column that fails a check sends the file to the row
  path, which names the file, line and field of the first bad row.

:mod:`mindsport.history.io` holds the public functions.
"""
