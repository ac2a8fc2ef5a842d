// Known-item queries on the Python 3.11 documentation (Debian's python3.11-doc, without the generated general index
// pages), a MEASURED-ONLY corpus: no rule or weight is chosen on it. Written from the pages' titles and contents
// before any ranking change was measured on it. Where two pages could answer, the one whose subject is exactly the
// query wins: a module's reference page for its name or a dotted name in it, a HOWTO for a phrase naming a topic.
import type { Corpus, KnownItem } from './known-item.js';

const items: KnownItem[] = [
  // Modules by name.
  { query: 'argparse', page: 'library/argparse.html', why: 'the reference page of the argparse module' },
  { query: 'pathlib', page: 'library/pathlib.html', why: 'the reference page of pathlib' },
  { query: 'subprocess', page: 'library/subprocess.html', why: 'the reference page of subprocess' },
  { query: 'asyncio', page: 'library/asyncio.html', why: "the asyncio module's main page" },
  { query: 'itertools', page: 'library/itertools.html', why: 'the reference page of itertools' },
  { query: 'functools', page: 'library/functools.html', why: 'the reference page of functools' },
  { query: 'dataclasses', page: 'library/dataclasses.html', why: 'the reference page of dataclasses' },
  { query: 'sqlite3', page: 'library/sqlite3.html', why: 'the reference page of sqlite3 (a name with a digit)' },
  { query: 'json', page: 'library/json.html', why: 'the reference page "json — JSON encoder and decoder"' },
  { query: 'csv', page: 'library/csv.html', why: 'the reference page "csv — CSV File Reading and Writing"' },
  { query: 'tomllib', page: 'library/tomllib.html', why: 'the reference page of tomllib' },
  { query: 'venv', page: 'library/venv.html', why: 'the reference page "venv — Creation of virtual environments"' },
  { query: 'typing', page: 'library/typing.html', why: 'the reference page "typing — Support for type hints"' },
  { query: 'threading', page: 'library/threading.html', why: 'the reference page of threading' },
  { query: 'multiprocessing', page: 'library/multiprocessing.html', why: 'the reference page of multiprocessing' },
  { query: 'hashlib', page: 'library/hashlib.html', why: 'the reference page of hashlib' },
  { query: 're', page: 'library/re.html', why: 'the reference page "re — Regular expression operations"' },
  { query: 'base64', page: 'library/base64.html', why: 'the reference page of base64 (a name with digits)' },
  { query: 'datetime', page: 'library/datetime.html', why: 'the reference page of datetime' },
  { query: 'unittest', page: 'library/unittest.html', why: 'the reference page "unittest — Unit testing framework"' },
  // Dotted names: a submodule, or a function of a module, as typed in code.
  { query: 'os.path', page: 'library/os.path.html', why: 'the page "os.path — Common pathname manipulations"' },
  { query: 'collections.abc', page: 'library/collections.abc.html', why: 'the page of collections.abc' },
  { query: 'concurrent.futures', page: 'library/concurrent.futures.html', why: 'the page of concurrent.futures' },
  { query: 'urllib.parse', page: 'library/urllib.parse.html', why: 'the page of urllib.parse' },
  { query: 'unittest.mock', page: 'library/unittest.mock.html', why: 'the page "unittest.mock — mock object library"' },
  { query: 'logging.handlers', page: 'library/logging.handlers.html', why: 'the page of logging.handlers' },
  { query: 'http.server', page: 'library/http.server.html', why: 'the page "http.server — HTTP servers"' },
  { query: 'xml.etree.ElementTree', page: 'library/xml.etree.elementtree.html', why: 'the page of that module' },
  { query: 'json.dumps', page: 'library/json.html', why: 'json.dumps is defined on the json page' },
  { query: 'subprocess.run', page: 'library/subprocess.html', why: 'subprocess.run is defined on the subprocess page' },
  { query: 'os.environ', page: 'library/os.html', why: 'os.environ is defined on the os page' },
  {
    query: 'asyncio.gather',
    page: 'library/asyncio-task.html',
    why: 'asyncio.gather is defined in "Coroutines and Tasks"',
  },
  { query: 'struct.pack', page: 'library/struct.html', why: 'struct.pack is defined on the struct page' },
  { query: 'sys.argv', page: 'library/sys.html', why: 'sys.argv is defined on the sys page' },
  // Names inside a module.
  { query: 'defaultdict', page: 'library/collections.html', why: 'defaultdict is defined in collections' },
  { query: 'namedtuple', page: 'library/collections.html', why: 'namedtuple is defined in collections' },
  { query: 'lru_cache', page: 'library/functools.html', why: 'functools.lru_cache is defined in functools' },
  { query: '__main__', page: 'library/__main__.html', why: 'the page "__main__ — Top-level code environment"' },
  { query: '__future__', page: 'library/__future__.html', why: 'the page "__future__ — Future statement definitions"' },
  {
    query: 'PYTHONPATH',
    page: 'using/cmdline.html',
    why: 'the environment variable is defined in "Command line and environment"',
  },
  // Titles with version numbers.
  {
    query: "what's new in python 3.11",
    page: 'whatsnew/3.11.html',
    why: 'the page titled "What\'s New In Python 3.11"',
  },
  { query: 'whats new 3.8', page: 'whatsnew/3.8.html', why: 'the page titled "What\'s New In Python 3.8"' },
  { query: 'python 2.7 new features', page: 'whatsnew/2.7.html', why: 'the page titled "What\'s New in Python 2.7"' },
  { query: 'porting python 2 code to python 3', page: 'howto/pyporting.html', why: 'the HOWTO of that title' },
  { query: 'uuid rfc 4122', page: 'library/uuid.html', why: 'the page "uuid — UUID objects according to RFC 4122"' },
  // Guides and HOWTOs, by the phrase that names them.
  { query: 'sorting how to', page: 'howto/sorting.html', why: 'the page titled "Sorting HOW TO"' },
  { query: 'regular expression howto', page: 'howto/regex.html', why: 'the page titled "Regular Expression HOWTO"' },
  { query: 'logging cookbook', page: 'howto/logging-cookbook.html', why: 'the page titled "Logging Cookbook"' },
  { query: 'logging howto', page: 'howto/logging.html', why: 'the page titled "Logging HOWTO"' },
  { query: 'descriptor guide', page: 'howto/descriptor.html', why: 'the page titled "Descriptor HowTo Guide"' },
  { query: 'unicode howto', page: 'howto/unicode.html', why: 'the page titled "Unicode HOWTO"' },
  { query: 'socket programming', page: 'howto/sockets.html', why: 'the page titled "Socket Programming HOWTO"' },
  { query: 'functional programming howto', page: 'howto/functional.html', why: 'the page of that title' },
  { query: 'argparse tutorial', page: 'howto/argparse.html', why: 'the page titled "Argparse Tutorial"' },
  { query: 'annotations best practices', page: 'howto/annotations.html', why: 'the page of that title' },
  { query: 'enum howto', page: 'howto/enum.html', why: 'the page titled "Enum HOWTO"' },
  { query: 'instrumenting cpython with dtrace', page: 'howto/instrumentation.html', why: 'the page of that title' },
  // Language reference and tutorial chapters.
  { query: 'data model', page: 'reference/datamodel.html', why: 'the reference chapter "3. Data model"' },
  { query: 'the import system', page: 'reference/import.html', why: 'the reference chapter "5. The import system"' },
  {
    query: 'lexical analysis',
    page: 'reference/lexical_analysis.html',
    why: 'the reference chapter "2. Lexical analysis"',
  },
  { query: 'compound statements', page: 'reference/compound_stmts.html', why: 'the chapter "8. Compound statements"' },
  {
    query: 'full grammar specification',
    page: 'reference/grammar.html',
    why: 'the chapter "10. Full Grammar specification"',
  },
  {
    query: 'f-strings',
    page: 'reference/lexical_analysis.html',
    why: 'formatted string literals (f-strings) are defined in "Lexical analysis"',
  },
  { query: 'virtual environments and packages', page: 'tutorial/venv.html', why: 'the tutorial chapter of that title' },
  {
    query: 'floating point arithmetic issues and limitations',
    page: 'tutorial/floatingpoint.html',
    why: 'the tutorial chapter of that title',
  },
  {
    query: 'errors and exceptions',
    page: 'tutorial/errors.html',
    why: 'the tutorial chapter "8. Errors and Exceptions"',
  },
  {
    query: 'list comprehensions',
    page: 'tutorial/datastructures.html',
    why: 'list comprehensions are section 5.1.3 of "Data Structures"',
  },
  {
    query: 'command line and environment',
    page: 'using/cmdline.html',
    why: 'the chapter "1. Command line and environment"',
  },
  { query: 'using python on windows', page: 'using/windows.html', why: 'the chapter "4. Using Python on Windows"' },
  {
    query: 'built-in functions',
    page: 'library/functions.html',
    why: 'the page titled "Built-in Functions" (dashed word)',
  },
  { query: 'built-in exceptions', page: 'library/exceptions.html', why: 'the page titled "Built-in Exceptions"' },
  {
    query: 'format string syntax',
    page: 'library/string.html',
    why: 'the section "Format String Syntax" of the string page',
  },
  { query: 'glossary', page: 'glossary.html', why: 'the page titled "Glossary"' },
  // Everyday tasks and topics, in a person's words.
  {
    query: 'shallow and deep copy',
    page: 'library/copy.html',
    why: 'the page "copy — Shallow and deep copy operations"',
  },
  { query: 'heap queue', page: 'library/heapq.html', why: 'the page "heapq — Heap queue algorithm"' },
  {
    query: 'pseudo-random numbers',
    page: 'library/random.html',
    why: 'the page "random — Generate pseudo-random numbers"',
  },
  {
    query: 'measure execution time',
    page: 'library/timeit.html',
    why: 'the page "timeit — Measure execution time of small code snippets"',
  },
  { query: 'type hints', page: 'library/typing.html', why: 'the page "typing — Support for type hints"' },
  { query: 'abstract base classes', page: 'library/abc.html', why: 'the page "abc — Abstract Base Classes"' },
  {
    query: 'temporary files',
    page: 'library/tempfile.html',
    why: 'the page "tempfile — Generate temporary files and directories"',
  },
  { query: 'zip archives', page: 'library/zipfile.html', why: 'the page "zipfile — Work with ZIP archives"' },
  {
    query: 'sys.path initialization',
    page: 'library/sys_path_init.html',
    why: 'the page "The initialization of the sys.path module search path"',
  },
  { query: 'python development mode', page: 'library/devmode.html', why: 'the page titled "Python Development Mode"' },
  {
    query: 'ipv4 ipv6 addresses',
    page: 'library/ipaddress.html',
    why: 'the page "ipaddress — IPv4/IPv6 manipulation library"',
  },
  { query: 'garbage collector', page: 'library/gc.html', why: 'the page "gc — Garbage Collector interface"' },
];

export const PYTHON: Corpus = {
  name: 'Python 3.11 documentation',
  role: 'measured',
  root: '/usr/share/doc/python3.11/html',
  debianPackage: 'python3.11-doc',
  pages: (path) =>
    path.endsWith('.html') &&
    !/(^|\/)genindex/.test(path) &&
    !path.startsWith('_') &&
    !['search.html', 'contents.html', 'includes/wasm-notavail.html'].includes(path),
  items,
};
