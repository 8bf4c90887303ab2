"""What Python cells see: Flex values, the special functions, and plain data on the way out.

Loaded once per Python runtime (process or worker thread). JavaScript hands each cell the run's
namespace entries and its special functions; the cell's value goes back as plain data.
"""

import ast as _ast
import datetime
import decimal as _decimal
import io
import builtins as _builtins
import _signal
import signal
import sys
import types

from pyodide.ffi import JsArray, JsBuffer, JsCallable, JsException, JsProxy, jsnull, to_js

# What cells.py needs of JavaScript objects, given by connect(): the JavaScript world Pyodide sees has
# nothing, not even a way to make a function.
_js_has = _js_get = _js_set = _js_delete = _js_keys = _from_entries = None

# JavaScript values' kinds by their proxy's type: Pyodide's own isinstance checks parse its type flags
# anew on every call, and each combination of flags has a proxy type of its own. Python's own data types
# are here from the start; a class of a cell's own is never kept, so that none outlives its run.
_js_kinds = dict.fromkeys(
    (str, int, float, bool, type(None), dict, list, tuple, set, frozenset, bytes, bytearray, memoryview)
)


def _js_kind(value):
    """What a JavaScript value is: "buffer", "array", "function" or "object"; None for a Python value."""
    kind_of = type(value)
    if kind_of in _js_kinds:
        return _js_kinds[kind_of]
    if not isinstance(value, JsProxy):
        return None
    if isinstance(value, JsBuffer):
        kind = "buffer"
    elif isinstance(value, JsArray):
        kind = "array"
    elif isinstance(value, JsCallable):
        kind = "function"
    else:
        kind = "object"
    _js_kinds[kind_of] = kind
    return kind


def plain(value, none=None):
    """A value as plain data, as JSON holds it: what a cell stores or gives back. `none` stands for None
    and null at any depth (to_js_value gives jsnull: to_js makes None undefined, which JSON leaves out)."""
    if isinstance(value, Flex):
        value = object.__getattribute__(value, "_v")
    if value is None or value is jsnull:
        return none
    if isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, _decimal.Decimal):
        return str(value)
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, dict):
        return {str(key): plain(item, none) for key, item in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [plain(item, none) for item in value]
    if _js_kind(value) is not None:
        return value
    return str(value)


_SCALARS = frozenset((str, int, float, bool))


def to_js_value(value):
    """A value made JavaScript data: JSON's kinds (None as null), bytes as a Uint8Array, JavaScript's own as they are."""
    if type(value) in _SCALARS:
        return value
    data = plain(value, jsnull)
    if data is jsnull or isinstance(data, (bool, int, float, str)) or _js_kind(data) is not None:
        return data
    return to_js(data, dict_converter=_from_entries, create_pyproxies=False)


def wrap(value):
    """A value as a cell reads it: scalars as Python's, containers as Flex, nothing as the null Flex."""
    if value is None or value is jsnull:
        return NULL
    kind = _js_kind(value)
    if kind is None:
        return Flex(value) if isinstance(value, (dict, list)) else value
    if kind == "buffer":
        return value.to_bytes()
    return value if kind == "function" else Flex(value)


def _is_list(value):
    return isinstance(value, list) or _js_kind(value) == "array"


class Flex:
    """Payload data as the platform's cells read it: by attribute or item, a missing key a falsy null."""

    __slots__ = ("_v",)

    def __init__(self, value):
        object.__setattr__(self, "_v", value)

    def unwrap(self):
        """The value as Python's own data: dicts, lists and scalars, JavaScript's containers made Python's."""
        return _python_data(self)

    def _item(self, key):
        value = object.__getattribute__(self, "_v")
        if isinstance(key, Flex):
            key = key.unwrap()
        if value is None:
            return NULL
        if _is_list(value):
            if isinstance(key, slice):
                return Flex(plain(value)[key])
            if not isinstance(key, int) or isinstance(key, bool):
                return NULL
            try:
                return wrap(value[key])
            except IndexError:
                return NULL
        if isinstance(value, dict):
            return wrap(value.get(key))
        return wrap(_js_get(value, str(key)))

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        method = _forwarded(self, name)
        return method if method is not None else self._item(name)

    def __getitem__(self, key):
        return self._item(key)

    def __setitem__(self, key, item):
        value = object.__getattribute__(self, "_v")
        if isinstance(key, Flex):
            key = key.unwrap()
        if value is None:
            raise TypeError(f"cannot set {key!r} on a missing value")
        if isinstance(value, (dict, list)):
            value[key] = plain(item)
        elif _js_kind(value) == "array":
            value[key] = to_js_value(item)
        else:
            _js_set(value, str(key), to_js_value(item))

    def __setattr__(self, name, item):
        self[name] = item

    def __delitem__(self, key):
        value = object.__getattribute__(self, "_v")
        if isinstance(value, (dict, list)) or _js_kind(value) == "array":
            del value[key]
        elif value is not None:
            _js_delete(value, str(key))

    def __contains__(self, item):
        value = object.__getattribute__(self, "_v")
        if value is None:
            return False
        if _js_kind(value) == "object":
            return isinstance(item, str) and bool(_js_has(value, item))
        return plain(item) in plain(self)

    def __iter__(self):
        value = object.__getattribute__(self, "_v")
        if value is None:
            return iter(())
        if _is_list(value):
            return (wrap(item) for item in value)
        return iter(self.keys())

    def keys(self):
        value = object.__getattribute__(self, "_v")
        if isinstance(value, dict):
            return list(value.keys())
        if _js_kind(value) == "object":
            return list(_js_keys(value))
        return []

    def __len__(self):
        value = object.__getattribute__(self, "_v")
        if value is None:
            return 0
        if _js_kind(value) == "object":
            return len(_js_keys(value))
        return len(value)

    def __bool__(self):
        return len(self) > 0 if object.__getattribute__(self, "_v") is not None else False

    def __eq__(self, other):
        return _python_data(self) == _python_data(other)

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        data = plain(self)
        if isinstance(data, (list, dict)):
            raise TypeError("a Flex list or dict cannot be hashed")
        return hash(data)

    def __str__(self):
        return str(_python_data(self))

    def __repr__(self):
        return repr(_python_data(self))

    def __format__(self, spec):
        return format(_python_data(self), spec)


def _python_data(value):
    """Plain data with JavaScript's containers made Python's, for printing and comparing."""
    data = plain(value)
    if _js_kind(data) is not None:
        return data.to_py()
    if isinstance(data, list):
        return [_python_data(item) for item in data]
    if isinstance(data, dict):
        return {key: _python_data(item) for key, item in data.items()}
    return data


NULL = Flex(None)

_list_reads = {"index", "count", "copy"}


def _forwarded(flex, name):
    """The list or dict method `name` of a Flex's value, working on that value; None when it has none."""
    value = object.__getattribute__(flex, "_v")
    if value is None:
        return None
    if _is_list(value):
        if name in _list_reads:
            return getattr(_python_data(flex), name)
        methods = _list_methods
    else:
        methods = _dict_methods
    method = methods.get(name)
    return None if method is None else (lambda *args, **kwargs: method(flex, value, *args, **kwargs))


def _append(flex, value, item):
    value.append(plain(item) if isinstance(value, list) else to_js_value(item))


def _extend(flex, value, items):
    for item in items:
        _append(flex, value, item)


def _insert(flex, value, index, item):
    if isinstance(value, list):
        value.insert(index, plain(item))
    else:
        value.splice(index, 0, to_js_value(item))


def _pop_item(flex, value, index=-1):
    return wrap(value.pop(index))


def _remove(flex, value, item):
    value.pop(_python_data(flex).index(plain(item)))


_list_methods = {"append": _append, "extend": _extend, "insert": _insert, "pop": _pop_item, "remove": _remove}


def _get(flex, value, key, default=None):
    return flex._item(key) if key in flex else default


def _items(flex, value):
    return [(key, flex._item(key)) for key in flex.keys()]


def _values(flex, value):
    return [flex._item(key) for key in flex.keys()]


def _copy(flex, value):
    return _python_data(flex)


def _update(flex, value, other=(), **more):
    for key, item in {**dict(_python_data(other) or {}), **more}.items():
        flex[key] = item


def _pop_key(flex, value, key, *default):
    if key in flex:
        found = flex._item(key)
        del flex[key]
        return found
    if default:
        return default[0]
    raise KeyError(key)


def _setdefault(flex, value, key, default=None):
    if key not in flex:
        flex[key] = default
    return flex._item(key)


_dict_methods = {
    "get": _get,
    "items": _items,
    "values": _values,
    "copy": _copy,
    "update": _update,
    "pop": _pop_key,
    "setdefault": _setdefault,
}


class _DecimalModule(types.ModuleType):
    """The decimal module, also callable: decimal('12.30') is an exact Decimal."""

    def __call__(self, value):
        if value is None or value is NULL:
            return None
        return _decimal.Decimal(str(plain(value)))


decimal = _DecimalModule("decimal")
decimal.__dict__.update({k: v for k, v in vars(_decimal).items() if not k.startswith("__")})

_UNSET = object()


class RunFile:
    """One of the run's files, as open() gives it: read, write, close, and `with`."""

    def __init__(self, handle, mode):
        self._handle = handle
        self._binary = "b" in mode

    def read(self):
        data = self._handle.read()
        return data.to_bytes() if self._binary else data

    def write(self, data):
        if isinstance(data, (bytes, bytearray)):
            data = to_js(bytes(data))
        return self._handle.write(data)

    def close(self):
        self._handle.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class GlyueFileHandle:
    """A run's file as the platform's open_glyuefile() gives it: Python's open() over a buffer, loaded from
    the run's files when opened and written back to them on flush() and close()."""

    def __init__(self, filename, mode="r", encoding=None):
        name = str(filename)
        if "/" in name or "\\" in name:
            raise ValueError(f"open_glyuefile: {name!r} has a path; a file is named without one")
        kinds = set(mode)
        opening = kinds & set("rwxa")
        if len(opening) != 1 or not kinds <= set("rwxabt+") or {"b", "t"} <= kinds or len(mode) != len(kinds):
            raise ValueError(f"open_glyuefile: invalid mode {mode!r}")
        self.name = name
        self.mode = mode
        self._binary = "b" in kinds
        self.encoding = None if self._binary else (encoding or "utf-8")
        self._readable = "r" in kinds or "+" in kinds
        self._writable = bool(kinds & set("wxa+"))
        self._appending = "a" in kinds
        exists = name in list(_special("list_files")())
        if "x" in kinds and exists:
            raise FileExistsError(f"open_glyuefile: {name!r} exists already")
        if "r" in kinds and not exists:
            raise FileNotFoundError(f"open_glyuefile: this run has no file {name!r} (list_files() names its files)")
        self._buffer = io.BytesIO() if self._binary else io.StringIO()
        # Created or emptied: written back on close even if nothing is written.
        self._changed = bool(kinds & set("wx")) or not exists
        if exists and not kinds & set("wx"):
            data = _special("open_file")(name, "rb").read().to_bytes()
            self._buffer.write(data if self._binary else data.decode(self.encoding))
            self._buffer.seek(0, 2 if self._appending else 0)
        self.closed = False

    def _check(self, allowed, what):
        if self.closed:
            raise io.UnsupportedOperation("I/O operation on closed file")
        if not allowed:
            raise io.UnsupportedOperation(f"not {what}")

    def read(self, size=-1):
        self._check(self._readable, "readable")
        return self._buffer.read(size)

    def readline(self, size=-1):
        self._check(self._readable, "readable")
        return self._buffer.readline(size)

    def readlines(self, hint=-1):
        self._check(self._readable, "readable")
        return self._buffer.readlines(hint)

    def write(self, data):
        self._check(self._writable, "writable")
        if self._appending:
            self._buffer.seek(0, 2)
        self._changed = True
        return self._buffer.write(data)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def seek(self, position, whence=0):
        self._check(True, "seekable")
        return self._buffer.seek(position, whence)

    def tell(self):
        self._check(True, "seekable")
        return self._buffer.tell()

    def truncate(self, size=None):
        self._check(self._writable, "writable")
        self._changed = True
        size = self._buffer.truncate(size)
        self.flush()
        return size

    def readable(self):
        self._check(True, "")
        return self._readable

    def writable(self):
        self._check(True, "")
        return self._writable

    def seekable(self):
        self._check(True, "")
        return True

    def fileno(self):
        self._check(True, "")
        return abs(hash(self.name)) % 2**31

    def flush(self):
        self._check(True, "")
        if not self._changed:
            return
        data = self._buffer.getvalue()
        handle = _special("open_file")(self.name, "wb")
        handle.write(to_js(data if self._binary else data.encode(self.encoding)))
        handle.close()
        self._changed = False

    def close(self):
        if self.closed:
            return
        self.flush()
        self.closed = True

    def __iter__(self):
        return iter(self.readlines())

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def _given(**options):
    """Keyword arguments a cell gave, as JavaScript's options object has them: None and False left out."""
    return {key: value for key, value in options.items() if value is not None and value is not False}


class _SharedModule(types.ModuleType):
    """A shared module as cells get it: its names read-only, so that no run leaves state in it."""

    def __setattr__(self, name, value):
        raise AttributeError(f"module {self.__name__} is shared by every run: its names cannot be set")

    def __delattr__(self, name):
        raise AttributeError(f"module {self.__name__} is shared by every run: its names cannot be deleted")


# Modules by file and text: evaluated once for each text a project's load reads.
_shared_modules = {}


def _import_module(name):
    """import_module as the platform documents it: the module, bound under its name in the cell's names.
    Its code sees the special functions, as cells do."""
    path, text = _host.readModule(name)
    key = (path, text)
    module = _shared_modules.get(key)
    if module is None:
        made = types.ModuleType(str(name))
        made.__dict__.update(_CELL_GLOBALS)
        made.__file__ = path
        exec(compile(text, path, "exec"), made.__dict__)
        module = _SharedModule(str(name))
        module.__dict__.update(made.__dict__)
        _shared_modules[key] = module
    if _scope is not None:
        _scope[str(name)] = module
    return module


class _Vault:
    """A vault a run holds: its operations with Python values, and `with` to let go of it at the block's end."""

    def __init__(self, held):
        self._held = held
        self._vault = held.vault

    def get(self, key):
        return wrap(self._vault.get(key))

    def insert(self, key, value):
        self._vault.insert(key, to_js_value(value))

    def update(self, key, value):
        self._vault.update(key, to_js_value(value))

    def upsert(self, key, value):
        self._vault.upsert(key, to_js_value(value))

    def delete(self, key):
        self._vault.delete(key)

    def get_secret(self, key):
        return self._vault.get_secret(key)

    def insert_secret(self, key, value):
        self._vault.insert_secret(key, value)

    def update_secret(self, key, value):
        self._vault.update_secret(key, value)

    def upsert_secret(self, key, value):
        self._vault.upsert_secret(key, value)

    def delete_secret(self, key):
        self._vault.delete_secret(key)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._held.release()
        return False


# What bass does for the cells (PythonHost), given once: it works on the run whose cell runs now.
_host = None
_read = None
_special = None
_register_path = None
_read_path = None
_write_path = None
# The time limit's line and jump callbacks (see _time_limit), once connected.
_time_limit_callbacks = None


def connect(host, objects):
    """Gives the cells their host, and cells.py its JavaScript object operations, once per runtime."""
    global _host, _read, _special, _register_path, _read_path, _write_path, FAILED, _time_limit_callbacks
    global _js_has, _js_get, _js_set, _js_delete, _js_keys, _from_entries
    _host = host
    _read = host.read
    _special = host.special
    _register_path = host.registerPath
    _read_path = host.readPath
    _write_path = host.writePath
    _js_has, _js_get, _js_set = objects.has, objects.get, objects.set
    _js_delete, _js_keys, _from_entries = objects.delete, objects.keys, objects.fromEntries
    FAILED = objects.failed
    _time_limit_callbacks = _start_time_limit(host.pastDeadline)


def _end(payload=_UNSET, status=None, headers=None, state=None):
    options = {}
    if payload is not _UNSET:
        options["payload"] = payload
    if status is not None:
        options["status"] = status
    if headers is not None:
        options["headers"] = headers
    if state is not None:
        options["state"] = state
    _special("end")(to_js_value(options))


# Python objects keep() was given that are no data (a module, an IndexGenerator), by run: they stay Python's,
# for the later cells of their run. The runs of the last while only: a run's cells come close together.
_kept_objects = __import__("collections").OrderedDict()
_KEPT_RUNS = 256
# The number of the run whose cell runs now (run_cell's).
_run = None


def _is_data(value):
    """Whether keep() hands a value to the run's namespace as data, or keeps the Python object itself."""
    return value is None or isinstance(
        value,
        (bool, int, float, str, bytes, bytearray, memoryview, list, tuple, dict, set, frozenset, Flex,
         JsProxy, _decimal.Decimal, datetime.date, datetime.time),
    )


def _keep(values=None, **more):
    given = _python_data(values) if isinstance(values, Flex) else values
    kept = {**dict(given or {}), **more}
    objects = {name: value for name, value in kept.items() if not _is_data(value)}
    if objects:
        _kept_objects.setdefault(_run, {}).update(objects)
        _kept_objects.move_to_end(_run)
        while len(_kept_objects) > _KEPT_RUNS:
            _kept_objects.popitem(last=False)
    # The namespace gets each one too, an object as its text: JavaScript cells and the record see that.
    _special("keep")(to_js_value(kept))
    _scope.absent.difference_update(kept)


def _print(*values, sep=" ", end="\n", file=None, flush=False):
    text = sep.join(str(value) for value in values)
    if file is None or file is sys.stdout:
        _special("console").info(text)
    elif file is sys.stderr:
        _special("console").error(text)
    else:
        file.write(text + end)


def _given_value(value):
    """A helper's argument as Python data: None for None and the null Flex."""
    value = plain(value)
    return None if value is None or value is jsnull else value


class _IndexGenerator:
    """Numbers in sequence for field mapping paths: next() gives the next, .last the one it gave last."""

    def __init__(self, start=0):
        self._next = start
        self.last = None

    def __iter__(self):
        return self

    def __next__(self):
        self.last = self._next
        self._next += 1
        return self.last


class _DataUtils:
    """The platform's data_utils, as its reference documents them for Python cells (JavaScript cells have
    bass's own, with JavaScript's values). None in, None out."""

    IndexGenerator = _IndexGenerator

    @staticmethod
    def extract_chars(field, *bounds, **named):
        """The text cut as Python slices it: (4) is its first four characters, (7, 100) and (0, 7, 2) as [7:100]
        and [0:7:2]; start, stop and step as keywords too."""
        field = _given_value(field)
        if field is None:
            return None
        if bounds and named:
            raise TypeError("extract_chars() takes its bounds by position or by keyword, not both")
        cut = slice(*bounds) if bounds else slice(named.get("start"), named.get("stop"), named.get("step"))
        return str(field)[cut]

    @staticmethod
    def extract_digits(field):
        field = _given_value(field)
        return None if field is None else "".join(char for char in str(field) if char.isdigit())

    @staticmethod
    def percent_to_decimal(percent):
        percent = _given_value(percent)
        if percent is None or percent == "":
            return None
        return _decimal.Decimal(str(percent)) / 100

    @staticmethod
    def round_half_up(input_num, decimal_places=2):
        input_num = _given_value(input_num)
        if input_num is None or input_num == "":
            return None
        exponent = _decimal.Decimal(1).scaleb(-int(decimal_places))
        return _decimal.Decimal(str(input_num)).quantize(exponent, rounding=_decimal.ROUND_HALF_UP)

    @staticmethod
    def get_current_date_string(timezone, date_format="%Y-%m-%d"):
        # CPython here has no time zone database: JavaScript's Intl has one.
        return _special("data_utils").get_current_date_string(str(timezone), str(date_format))

    @staticmethod
    def convert_date_string(input_date, in_format, out_format="%Y-%m-%d"):
        input_date = _given_value(input_date)
        if input_date is None:
            return None
        return datetime.datetime.strptime(str(input_date), in_format).strftime(out_format)


def _debug(value, label=None, capture_stack_trace=False):
    """debug as the platform documents it; with capture_stack_trace, a second item holds the cell's stack."""
    _special("debug")(to_js_value(value), label)
    if capture_stack_trace:
        import traceback

        frames = [frame for frame in traceback.extract_stack()[:-1] if frame.filename.startswith("bass-py-cell")]
        stack = "".join(traceback.format_list(frames))
        _special("debug")(stack, f"{label} stack" if label else "stack")


def _callint(path_name, payload=None, extended_payload=False, force_run_mode=None, **older):
    """callint as the platform documents it; bass's earlier keywords `extended` and `mode` still work."""
    extended = older.pop("extended", extended_payload)
    mode = older.pop("mode", force_run_mode)
    if older:
        raise TypeError(f"callint() got an unexpected keyword argument {next(iter(older))!r}")
    options = _given(extended=extended, mode=mode)
    return wrap(_host.callint(path_name, to_js_value(payload), to_js_value(options)))


def _calladapter(system, service_name, *given, **named):
    """calladapter as the platform documents it: (label, payload, sub_requests), by position or keyword.
    Given by position, a first argument that is not text is the payload, as bass's earlier order
    (payload, label) had it: a label is always text."""
    if len(given) > 3:
        raise TypeError(f"calladapter() takes at most 5 positional arguments ({len(given) + 2} given)")
    order = ("payload", "label") if given and not isinstance(given[0], (str, type(None))) else _ADAPTER_ORDER
    arguments = dict(zip(order, given))
    for name, value in named.items():
        if name not in _ADAPTER_ORDER:
            raise TypeError(f"calladapter() got an unexpected keyword argument {name!r}")
        if name in arguments:
            raise TypeError(f"calladapter() got multiple values for argument {name!r}")
        arguments[name] = value
    if arguments.get("sub_requests") is not None:
        raise NotImplementedError("calladapter's sub_requests need the hosted platform's adapters")
    options = _given(label=arguments.get("label"))
    return wrap(_host.calladapter(system, service_name, to_js_value(arguments.get("payload")), to_js_value(options)))


_ADAPTER_ORDER = ("label", "payload", "sub_requests")


# The platform's helpers; only data_utils is bass's too.
_HOSTED_HELPERS = ("ncino", "salesforce", "connectware")


def _import_helper(name):
    """import_helper as the platform documents it: the helper, bound in the cell's names too."""
    name = str(name)
    if name != "data_utils":
        if name in _HOSTED_HELPERS:
            raise ImportError(f"import_helper({name!r}): that helper needs the hosted platform; bass has data_utils")
        raise ImportError(f"import_helper({name!r}): no such helper; the platform's are {', '.join(_HOSTED_HELPERS)} and data_utils")
    helper = _CELL_GLOBALS["data_utils"]
    _scope["data_utils"] = helper
    return helper


# The special functions with their Python signatures, as every cell's globals start.
_CELL_GLOBALS = {
    "end": _end,
    "keep": _keep,
    "historize": lambda value, label=None: _special("historize")(to_js_value(value), label),
    "debug": _debug,
    "map_value": lambda set_name, value: wrap(_special("map_value")(set_name, to_js_value(value))),
    "add_run_label": lambda label: _special("add_run_label")(str(label)),
    "humanize": lambda name: _special("humanize")(str(name)),
    "get_namespace": lambda: wrap(_special("get_namespace")()),
    "print": _print,
    "open_file": lambda name, mode="r": RunFile(_special("open_file")(name, mode), mode),
    "open_glyuefile": GlyueFileHandle,
    "list_files": lambda: list(_special("list_files")()),
    "decimal": decimal,
    "data_utils": _DataUtils(),
    "callint": _callint,
    "calladapter": _calladapter,
    "open_vault": lambda name: _Vault(_host.openVault(name)),
    "import_module": _import_module,
    "import_helper": _import_helper,
}


class Cell:
    """A cell compiled once: its code object, and whether it is an expression (a one-line cell that is
    one is evaluated)."""

    __slots__ = ("code", "expression", "filename")

    def __init__(self, code, filename):
        self.filename = filename
        text = _one_line(code)
        if text is not None:
            try:
                self.code = _compiled(text, filename, "eval")
                self.expression = True
                return
            except SyntaxError:
                pass
        self.code = _compiled(code, filename, "exec")
        self.expression = False


def _one_line(code):
    """A one-line cell's text without the blanks around it, which Cell tries as an expression; else None."""
    text = code.strip()
    return None if "\n" in text else text


def _compiled(code, filename, mode):
    tree = _ast.parse(code, filename, mode)
    tree = _KeyPaths(_bound_names(tree)).visit(tree)
    return compile(_ast.fix_missing_locations(tree), filename, mode)


def _bound_names(tree):
    """Every name the code binds anywhere: assigned, deleted, defined, imported, a parameter, a capture."""
    bound = set()
    for node in _ast.walk(tree):
        if isinstance(node, _ast.Name) and not isinstance(node.ctx, _ast.Load):
            bound.add(node.id)
        elif isinstance(node, (_ast.FunctionDef, _ast.AsyncFunctionDef, _ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, _ast.arg):
            bound.add(node.arg)
        elif isinstance(node, _ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, (_ast.Global, _ast.Nonlocal)):
            bound.update(node.names)
        elif isinstance(node, _ast.MatchMapping) and node.rest:
            bound.add(node.rest)
        elif isinstance(getattr(node, "name", None), str):
            # except … as name, match captures, type parameters
            bound.add(node.name)
    return bound


# Attribute names a Flex answers itself (methods, its slot, dunders): a read through one is not a key's.
_FLEX_NAMES = frozenset(dir(Flex)) | _dict_methods.keys() | _list_methods.keys() | _list_reads
# The names a cell's key path cannot start from: those its globals have before any read of the namespace.
_NOT_ROOTS = _CELL_GLOBALS.keys() | {"__bass_path__", "__bass_set__", "__builtins__"}
# Each compiled key path's root name and keys, by the index the host gave it.
_paths = {}


class _KeyPaths(_ast.NodeTransformer):
    """Compiles each read of `name.key.key…`, where the cell never binds `name`, to `__bass_path__(index)`,
    and each assignment to one to `__bass_set__(index, value)`: one call to the host for the whole path,
    where reading it a step at a time crosses to JavaScript at each step. A called method's name stays
    outside the path (`input.payload.name.strip()`)."""

    def __init__(self, bound):
        self.bound = bound

    def _index(self, node, names):
        """The path index of `node.names…` when node is a name the path may start from, else None."""
        if not isinstance(node, _ast.Name) or node.id in self.bound or node.id in _NOT_ROOTS:
            return None
        index = _register_path(".".join((node.id, *names)))
        _paths[index] = (node.id, tuple(names))
        return index

    def visit_Call(self, node):
        if isinstance(node.func, _ast.Attribute):
            node.func.value = self.visit(node.func.value)
        else:
            node.func = self.visit(node.func)
        node.args = [self.visit(argument) for argument in node.args]
        node.keywords = [self.visit(keyword) for keyword in node.keywords]
        return node

    def visit_Attribute(self, node):
        root, chain = _attribute_chain(node)
        keys = _data_keys(chain)
        index = self._index(root, keys) if keys else None
        if index is None:
            return self.generic_visit(node)
        path = _ast.copy_location(_call("__bass_path__", _ast.Constant(index)), chain[len(keys) - 1])
        if len(keys) == len(chain):
            return path
        # The rest of the chain (a method's name, a key past one) reads on from the path's value.
        chain[len(keys)].value = path
        return node

    def visit_match_case(self, node):
        # A pattern's `Color.RED` names a value to compare with; a call in its place does not compile.
        if node.guard is not None:
            node.guard = self.visit(node.guard)
        node.body = [self.visit(statement) for statement in node.body]
        return node

    def visit_Assign(self, node):
        node.value = self.visit(node.value)
        target = node.targets[0]
        if len(node.targets) == 1 and isinstance(target, _ast.Attribute):
            root, chain = _attribute_chain(target.value)
            names = [step.attr for step in chain] + [target.attr]
            if len(_data_keys([*chain, target])) == len(names):
                index = self._index(root, names)
                if index is not None:
                    return _ast.copy_location(_ast.Expr(_call("__bass_set__", _ast.Constant(index), node.value)), node)
        node.targets = [self.visit(each) for each in node.targets]
        return node


def _call(name, *arguments):
    return _ast.Call(_ast.Name(name, _ast.Load()), list(arguments), [])


def _attribute_chain(node):
    """The name (or other expression) a chain of attribute reads starts from, and its reads, first first."""
    chain = []
    while isinstance(node, _ast.Attribute) and isinstance(node.ctx, _ast.Load):
        chain.append(node)
        node = node.value
    chain.reverse()
    return node, chain


def _data_keys(chain):
    """The names of the chain's first reads that read a key: up to a Flex's own name (a method, a dunder)."""
    keys = []
    for step in chain:
        if step.attr in _FLEX_NAMES or step.attr.startswith("__"):
            break
        keys.append(step.attr)
    return keys


def _key_path(index):
    """A compiled key path's value, as the cell would read it a step at a time: in one call to the host
    when the path runs through the namespace's objects."""
    scope = _scope
    root, keys = _paths[index]
    if _reads_namespace(scope, root):
        value = _read_path(index)
        if value is not None:
            return wrap(value)
    return _read_steps(scope, root, keys)


def _key_path_set(index, item):
    """A compiled assignment to a key path, as the cell would make it a step at a time: in one call to the
    host when the path runs through the namespace's objects."""
    scope = _scope
    root, keys = _paths[index]
    if _reads_namespace(scope, root) and _write_path(index, to_js_value(item)):
        return
    setattr(_read_steps(scope, root, keys[:-1]), keys[-1], item)


def _reads_namespace(scope, root):
    """Whether the cell running now would read `root` from the run's namespace: neither it nor keep() set
    it. (A function a cell made reads against the cell that calls it: cells share their run's names.)"""
    kept = _kept_objects.get(_run)
    return root not in scope and (kept is None or root not in kept)


def _read_steps(scope, root, keys):
    try:
        value = scope[root]
    except KeyError:
        # Where the namespace lacks the name, a built-in of that name is read, as for any global.
        try:
            value = getattr(scope["__builtins__"], root)
        except AttributeError:
            raise NameError(f"name '{root}' is not defined") from None
    for key in keys:
        value = getattr(value, key)
    return value


_CELL_GLOBALS["__bass_set__"] = _key_path_set
_CELL_GLOBALS["__bass_path__"] = _key_path


def syntax_error(code, filename):
    """None for a cell that compiles, else [message, line, column] of its first error (1-based)."""
    try:
        Cell(code, filename)
        return None
    except SyntaxError as error:
        return [f"{type(error).__name__}: {error.msg}", error.lineno or 1, error.offset or 1]


class CellTimeout(BaseException):
    """Raised in a cell past its deadline: no `except Exception` catches it."""


_monitoring = sys.monitoring
# Tool ids 0, 1, 2 and 5 are the debugger's, coverage's, profilers' and optimizers'.
_TIME_LIMIT = 4
_monitoring.use_tool_id(_TIME_LIMIT, "bass cell time limit")


_builtin_names = frozenset(dir(_builtins))


class _Scope(dict):
    """A cell's globals: the special functions, then the run's namespace read a name at a time, as the
    cell asks for it, so that a cell pays for the values it reads only. A built-in the namespace lacks
    (len) is remembered for the cell, until keep() gives one of that name a value."""

    __slots__ = ("absent",)

    def __missing__(self, name):
        absent = self.absent
        if name in absent:
            raise KeyError(name)
        kept = _kept_objects.get(_run)
        if kept is not None and name in kept:
            return kept[name]
        # The namespace's own value, or undefined (None here) where it has none; null comes as jsnull.
        value = _read(name)
        if value is None:
            # Only a built-in's absence is remembered: a loop variable unset now may be set for a later cell.
            if name in _builtin_names:
                absent.add(name)
            raise KeyError(name)
        # A variable that holds null is None (`_ is None` holds); within a Flex, a missing key is the null Flex.
        found = None if value is jsnull else wrap(value)
        self[name] = found
        return found


# The interpreter's state as seal() left it, which restore_state() puts back: each module's names (the
# built-ins among them), the cells' own built-ins, the import system's lists and the time limit's handler.
_saved_modules = {}
_saved_names = {}
_saved_lists = []
# Modules whose names changed since the last restore_state(), as _WatchedModule notes them.
_changed = set()
_module_names = types.ModuleType.__dict__["__dict__"].__get__


class _WatchedModule(types.ModuleType):
    """A module as seal() left it: a change to its names (by assignment, setattr, vars() or __dict__) is
    noted, so that restore_state() puts back the modules that changed and looks at no other."""

    def __setattr__(self, name, value):
        _changed.add(self)
        types.ModuleType.__setattr__(self, name, value)

    def __delattr__(self, name):
        _changed.add(self)
        types.ModuleType.__delattr__(self, name)

    @property
    def __dict__(self):
        _changed.add(self)
        return _module_names(self)


def seal():
    """Once cells.py is connected: forgets the JavaScript modules, keeps the state each run starts from, and
    refuses what cells may not do. Gives restore_own and restore_state (see _restoring), which JavaScript
    keeps: no cell can replace them."""
    for name in ("js", "pyodide_js", "pyodide_js._api"):
        sys.modules.pop(name, None)
    # Pyodide's event loop schedules Python on JavaScript timers: no cell leaves work for after its run.
    import pyodide.webloop

    def _no_timers(*args):
        raise RuntimeError("cells have no timers")

    pyodide.webloop.scheduleCallback = _no_timers
    for module in sys.modules.values():
        names = getattr(module, "__dict__", None)
        if type(names) is not dict:
            continue
        _saved_names[module] = dict(names)
        # A module of a class of its own keeps it, and is compared name by name at each restore.
        if type(module) is types.ModuleType:
            module.__class__ = _WatchedModule
    for kept in (sys.meta_path, sys.path, sys.path_hooks, __import__("warnings").filters):
        _saved_lists.append((kept, list(kept)))
    _saved_modules.update(sys.modules)
    _saved_module_list.extend(sys.modules.values())
    _unwatched.extend(
        (names, dict(names), list(names.values()))
        for names in (_module_names(m) for m in _saved_names if type(m) is not _WatchedModule)
    )
    # The environment's names are a dict of os.environ's, changed in place.
    environ = __import__("os").environ._data
    _unwatched.append((environ, dict(environ), list(environ.values())))
    _saved_names[_cell_builtins] = dict(_module_names(_cell_builtins))
    _cell_builtins.__class__ = _WatchedModule
    _saved_settings.extend(_settings())
    _changed.clear()
    own = globals()
    restorers = _restoring(own, tuple(own), tuple(own.values()), tuple(own.items()))
    sys.addaudithook(_audit_hook(_time_limit_callbacks))
    return restorers


def _restoring(own, keys, values, items, same=__import__("operator").is_, unchanged=all, each=map, size=len):
    """restore_own, which puts back this module's own names (a cell may have changed them through a special
    function's __globals__), from its defaults; and restore_state, which does so before it reads them."""

    def restore_own(own=own, keys=keys, values=values, items=items, same=same, unchanged=unchanged,
                    each=each, size=size, clear=dict.clear, update=dict.update, listed=dict.values):
        if size(own) == size(keys) and unchanged(each(same, own, keys)) and unchanged(each(same, listed(own), values)):
            return 0
        clear(own)
        update(own, items)
        return 1

    def restore_state(restore_own=restore_own):
        return restore_own() + _restore_interpreter()

    return restore_own, restore_state


# Namespaces no _WatchedModule stands for (modules of a class of their own, the cells' built-ins, the
# environment): each restore_state() compares them by identity.
_unwatched = []
_saved_module_list = []
# The interpreter's settings as seal() left them (see _settings).
_saved_settings = []


_same = __import__("operator").is_


def _changed_from(values, saved):
    """Whether values differ from saved ones, by identity: no object's __eq__ is asked."""
    return len(values) != len(saved) or not all(map(_same, values, saved))


def _settings():
    """The interpreter's settings a cell can change and restore_state puts back: the recursion limit, the
    longest int text, and decimal's three contexts (DefaultContext is what each new Context copies)."""
    return [
        sys.getrecursionlimit(),
        sys.get_int_max_str_digits(),
        *(repr(context) for context in (_decimal.DefaultContext, _decimal.BasicContext, _decimal.ExtendedContext)),
    ]


_CONTEXT_FIELDS = ("prec", "rounding", "Emin", "Emax", "capitals", "clamp")
_decimal_templates = [
    (context, {name: getattr(context, name) for name in _CONTEXT_FIELDS}, dict(context.traps), dict(context.flags))
    for context in (_decimal.DefaultContext, _decimal.BasicContext, _decimal.ExtendedContext)
]


def _restore_settings():
    """Puts back the settings that differ from seal()'s; says whether any did."""
    if _settings() == _saved_settings:
        return False
    sys.setrecursionlimit(_saved_settings[0])
    sys.set_int_max_str_digits(_saved_settings[1])
    for context, fields, traps, flags in _decimal_templates:
        for name, value in fields.items():
            setattr(context, name, value)
        context.traps = traps
        context.flags = flags
    return True


def _restore_monitoring():
    """Puts back the time limit's tool, and frees any other a cell took; says whether it did. A tool's
    callbacks cannot be read, so the time limit's are registered again."""
    restored = False
    for tool in range(6):
        if tool != _TIME_LIMIT and _monitoring.get_tool(tool) is not None:
            _monitoring.free_tool_id(tool)
            restored = True
    if _monitoring.get_tool(_TIME_LIMIT) is None:
        _monitoring.use_tool_id(_TIME_LIMIT, "bass cell time limit")
        restored = True
    if _monitoring.get_events(_TIME_LIMIT):
        _monitoring.set_events(_TIME_LIMIT, 0)
        restored = True
    on_line, on_jump = _time_limit_callbacks
    if _monitoring.register_callback(_TIME_LIMIT, _monitoring.events.LINE, on_line) is not on_line:
        restored = True
    if _monitoring.register_callback(_TIME_LIMIT, _monitoring.events.JUMP, on_jump) is not on_jump:
        restored = True
    return restored


def _restore_interpreter():
    """Puts back what a run changed in the interpreter for the next run: modules imported, replaced or
    whose names changed, the built-ins, the import system's and warnings' lists, the environment, the
    interpreter's settings, the time limit's monitoring tool and the decimal context. A standard module's
    names changed through a function's __globals__ are not seen. Says how many it put back."""
    restored = 0
    modules = sys.modules
    if _changed_from(modules.values(), _saved_module_list):
        modules.clear()
        modules.update(_saved_modules)
        restored += 1
    for module in _changed:
        saved = _saved_names.get(module)
        names = _module_names(module)
        if saved is not None and _changed_from(names.values(), saved.values()):
            names.clear()
            names.update(saved)
            restored += 1
    _changed.clear()
    for names, saved, values in _unwatched:
        if _changed_from(names.values(), values):
            names.clear()
            names.update(saved)
            restored += 1
    for kept, saved in _saved_lists:
        if _changed_from(kept, saved):
            kept[:] = saved
            restored += 1
    restored += _restore_settings() + _restore_monitoring()
    # A run starts from the default decimal context, its cells sharing it as the platform's do: no run's
    # precision or rounding reaches another.
    _decimal.setcontext(_decimal.Context())
    return restored


# What run_cell gives for a cell that failed, whose failure last_failure() then tells: a JavaScript object
# that no cell's value is (connect gives it), so that a cell that succeeds crosses back as its value alone.
FAILED = None
_failure = None
# The globals of the cell that runs now.
_scope = None


def run_cell(cell, run):
    """Runs one cell of run number `run`, which the host works on now: its value as JavaScript data, or
    FAILED."""
    global _scope, _failure, _run
    _run = run
    outer = _scope
    scope = _scope = _Scope(_CELL_GLOBALS)
    scope.absent = set()
    try:
        value = eval(cell.code, scope) if cell.expression else _executed(cell.code, scope)
        return to_js_value(value)
    except CellTimeout as error:
        _failure = ["timeout", "", _line_of(error.__traceback__, cell.filename)]
    except JsException as error:
        # bass's own errors (an unknown module, a closed file) say what went wrong as they are.
        message = str(error).removeprefix("Error: ")
        _failure = ["error", message, _line_of(error.__traceback__, cell.filename)]
    except BaseException as error:
        message = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
        _failure = ["error", message, _line_of(error.__traceback__, cell.filename)]
    finally:
        _scope = outer
        _stop_watching()
    return FAILED


def last_failure():
    """The last failed cell's [kind, message, line]: kind error or timeout, line within the cell."""
    return _failure


def _executed(code, scope):
    exec(code, scope)
    return scope.get("retvalue")


def _stop_watching():
    if _monitoring.get_events(_TIME_LIMIT):
        _monitoring.set_events(_TIME_LIMIT, 0)


def _line_of(trace, filename):
    """The line of the cell's own code where the error happened: its last frame in the cell."""
    line = 1
    while trace is not None:
        if trace.tb_frame.f_code.co_filename == filename:
            line = trace.tb_lineno
        trace = trace.tb_next
    return line


# What no cell can switch off. A cell reaches everything module-level here (this module is __main__, and
# a special function's __globals__ is its namespace), so what decides what a cell may do is kept where no
# cell changes it: in the defaults of the functions that decide (a tuple; replacing a function's code or
# defaults is refused below), and in runtime.ts. None of them reads a global or a built-in name.

# Modules that reach JavaScript's world (and through it the host), the interpreter's memory, or other
# processes: no cell imports them, nor makes a built-in module anew (runtime.ts guards _imp for that).
FORBIDDEN_MODULES = (
    "js", "pyodide", "pyodide_js", "_pyodide", "_pyodide_core", "ctypes", "_ctypes", "_testcapi",
    "_testinternalcapi", "_testlimitedcapi", "_testbuffer", "_testclinic", "_testclinic_limited",
    "_testmultiphase", "_testsinglephase", "_testimportmultiple", "_xxtestfuzz", "xxsubtype",
    "_remote_debugging", "_posixsubprocess", "faulthandler",
)
# What no cell does, whatever it reaches: list every object of the interpreter, leave a hook or a tracer
# behind for later runs, or start or signal a process. bass's own code needs none of them once sealed.
_REFUSED = frozenset({
    "gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys.addaudithook", "sys.settrace",
    "sys.setprofile", "sys._setprofileallthreads", "sys._settraceallthreads", "sys.set_asyncgen_hooks_firstiter",
    "sys.set_asyncgen_hooks_finalizer", "sys.remote_exec", "os.system", "os.exec", "os.spawn", "os.posix_spawn",
    "os.fork", "os.forkpty", "os.kill", "os.killpg", "os.putenv", "os.unsetenv", "subprocess.Popen",
    "signal.pthread_kill",
})
# A function's parts whose change would change what it does.
_FUNCTION_PARTS = frozenset({"__code__", "__defaults__", "__kwdefaults__"})
# bass's classes, every run's: no cell changes what their objects do for a later run.
_OWN_CLASSES = (
    Flex, _Scope, _WatchedModule, _SharedModule, _DecimalModule, RunFile, GlyueFileHandle, _Vault,
    _IndexGenerator, _DataUtils, CellTimeout, Cell, _KeyPaths,
)
_builtin_import = _builtins.__import__


def _cell_import(name, globals=None, locals=None, fromlist=(), level=0, forbidden=frozenset(FORBIDDEN_MODULES)):
    """import for cells: a module imported already is found without the import machinery, so it is checked
    here too (the audit hook refuses those not imported yet)."""
    if level == 0 and str.partition(str.__str__(name), ".")[0] in forbidden:
        raise ImportError(f"a cell cannot import {name}: it reaches the JavaScript world bass runs in")
    return _builtin_import(name, globals, locals, fromlist, level)


# The built-ins cells see: Python's, with the import that refuses the modules above. A module, not a dict,
# so that a change to it is noted as any module's is (see _WatchedModule).
_cell_builtins = types.ModuleType("builtins")
_cell_builtins.__dict__.update(vars(_builtins))
_cell_builtins.__import__ = _cell_import
_CELL_GLOBALS["__builtins__"] = _cell_builtins

# bass's own code that runs while a cell is stopped, after it ended: never stopped itself.
_UNSTOPPED = (run_cell.__code__, _line_of.__code__, _stop_watching.__code__)


def _time_limit(past_deadline):
    """The time limit's SIGINT handler and its line and jump callbacks, which past_deadline (runtime.ts's:
    whether a cell runs past its deadline) decides: the handler stops the cell, then every line and jump
    but bass's own raises again, should the cell catch that. A SIGINT that comes in bass's own code after
    the cell ended is for no one, and events that come outside a stopping cell are turned off where they
    come."""

    def _on_deadline(signum, frame, past_deadline=past_deadline, unstopped=_UNSTOPPED, stop=CellTimeout,
                     monitoring=_monitoring, tool=_TIME_LIMIT,
                     events=_monitoring.events.LINE | _monitoring.events.JUMP):
        if frame is not None:
            for own in unstopped:
                if frame.f_code is own:
                    return
        if not past_deadline():
            return
        monitoring.restart_events()
        monitoring.set_events(tool, events)
        raise stop()

    def _stop_at_line(code, line, past_deadline=past_deadline, unstopped=_UNSTOPPED, stop=CellTimeout,
                      disable=_monitoring.DISABLE):
        if not past_deadline():
            return disable
        for own in unstopped:
            if code is own:
                return None
        raise stop()

    def _stop_at_jump(code, source, destination, past_deadline=past_deadline, unstopped=_UNSTOPPED,
                      stop=CellTimeout, disable=_monitoring.DISABLE):
        if not past_deadline():
            return disable
        for own in unstopped:
            if code is own:
                return None
        raise stop()

    return _on_deadline, _stop_at_line, _stop_at_jump


def _no_signals(*args):
    raise RuntimeError("a cell cannot change how signals are handled: the time limit has SIGINT")


def _start_time_limit(past_deadline):
    """Starts the time limit, and takes from every cell the means to change how signals are handled."""
    handler, on_line, on_jump = _time_limit(past_deadline)
    signal.signal(signal.SIGINT, handler)
    for name in ("signal", "setitimer", "alarm", "siginterrupt", "set_wakeup_fd", "pthread_sigmask"):
        if hasattr(_signal, name):
            setattr(_signal, name, _no_signals)
    _monitoring.register_callback(_TIME_LIMIT, _monitoring.events.LINE, on_line)
    _monitoring.register_callback(_TIME_LIMIT, _monitoring.events.JUMP, on_jump)
    return on_line, on_jump


def _audit_hook(callbacks):
    """The audit hook: what the import machinery and the interpreter say they do, refused once sealed,
    whoever does it (bass's own code needs none of it then). `callbacks` are the time limit's, the only
    ones registered. A str subclass is read as the text it holds."""

    def _audit(event, args, exact=str.__str__, partition=str.partition, starts=str.startswith,
               forbidden=frozenset(FORBIDDEN_MODULES), refused=_REFUSED, parts=_FUNCTION_PARTS,
               classes=_OWN_CLASSES, callbacks=callbacks, import_error=ImportError, refusal=RuntimeError):
        event = exact(event)
        if event == "import":
            name = exact(args[0])
            # A name with a file is a dynamic library: the standard library here has none.
            if partition(name, ".")[0] in forbidden or args[1] is not None:
                raise import_error(f"a cell cannot import {name}: it reaches the JavaScript world bass runs in")
        elif event in refused or starts(event, "ctypes."):
            raise refusal(f"a cell cannot call {event}")
        elif event == "sys.monitoring.register_callback":
            if args[0] is not callbacks[0] and args[0] is not callbacks[1]:
                raise refusal(f"a cell cannot call {event}")
        elif event == "object.__setattr__" or event == "object.__delattr__":
            part = exact(args[1])
            # An object made another class: a module unwatched, or a Flex that is no longer one.
            if part in parts or part == "__class__":
                raise refusal(f"a cell cannot change an object's {part}")
            for own in classes:
                if args[0] is own:
                    raise refusal(f"a cell cannot change {own.__name__}: bass's classes are every run's")

    return _audit


def _as_compiled(code):
    """A cell's tree as Cell compiles it (a one-line cell without the blanks around it), at the cell's own
    lines and columns."""
    text = _one_line(code)
    if text is None or not code[:1].isspace():
        return _ast.parse(code)
    tree = _ast.parse(text)
    leading = code[: code.index(text)]
    indent = len(leading[leading.rfind("\n") + 1 :].encode())
    for node in _ast.walk(tree):
        if hasattr(node, "col_offset"):
            node.col_offset += indent
            node.end_col_offset += indent
    return _ast.increment_lineno(tree, leading.count("\n"))


def cell_facts(code):
    """What lint needs of a cell that compiles: its free names, `x.request`/`x.response` reads,
    map_value's literal set names and the names keep() keeps; positions are 1-based line and column."""
    import ast
    import builtins

    tree = _as_compiled(code)
    assigned = _bound_names(tree)
    known = assigned | set(dir(builtins))
    free = []
    calls = []
    kept = []
    named = []
    imports = []
    for node in ast.walk(tree):
        where = [getattr(node, "lineno", 1), getattr(node, "col_offset", 0) + 1]
        if isinstance(node, ast.Import):
            imports.extend([alias.name.split(".")[0], *where] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            imports.append([node.module.split(".")[0], *where])
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in known:
            free.append([node.id, *where])
        elif (
            isinstance(node, ast.Attribute)
            and node.attr in ("request", "response")
            and isinstance(node.value, ast.Name)
            and node.value.id not in known
        ):
            calls.append([node.value.id, node.value.lineno, node.value.col_offset + 1])
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id not in assigned:
            if node.func.id == "keep":
                kept.extend(keyword.arg for keyword in node.keywords if keyword.arg)
                for argument in node.args:
                    if isinstance(argument, ast.Dict):
                        kept.extend(key.value for key in argument.keys if isinstance(key, ast.Constant))
            elif node.func.id == "map_value" and node.args and isinstance(node.args[0], ast.Constant):
                named.append([str(node.args[0].value), node.args[0].lineno, node.args[0].col_offset + 1])
    return {"free": free, "formula_variables": calls, "kept": kept, "map_value": named, "imports": imports}
