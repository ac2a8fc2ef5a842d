// Known-item queries on the Apache HTTP Server 2.4 manual (Debian's apache2-doc, its `en` pages), a MEASURED-ONLY
// corpus: no rule or weight is chosen on it. Written from the manual's page titles and contents before any ranking
// change was measured on it. Where two pages could answer, the one whose subject is exactly the query wins: a
// directive's module page (where it is defined) over pages that use it, a guide over a module for a how-to. A few
// of Debian's `en` pages are in Portuguese (bind, filter, install, invoking, new_features_2_4, upgrading): their
// queries are kept, as a person does not know that; only their address and numbers can find them.
import type { Corpus, KnownItem } from './known-item.js';

const items: KnownItem[] = [
  // Directives, typed as written in a configuration file: the module page that defines them.
  { query: 'RewriteRule', page: 'mod/mod_rewrite.html', why: 'the RewriteRule directive is defined in mod_rewrite' },
  { query: 'RewriteCond', page: 'mod/mod_rewrite.html', why: 'the RewriteCond directive is defined in mod_rewrite' },
  { query: 'ProxyPass', page: 'mod/mod_proxy.html', why: 'the ProxyPass directive is defined in mod_proxy' },
  { query: 'DocumentRoot', page: 'mod/core.html', why: 'DocumentRoot is a core directive' },
  { query: 'AllowOverride', page: 'mod/core.html', why: 'AllowOverride is a core directive' },
  { query: 'DirectoryIndex', page: 'mod/mod_dir.html', why: 'DirectoryIndex is defined in mod_dir' },
  { query: 'ErrorDocument', page: 'mod/core.html', why: 'ErrorDocument is a core directive' },
  { query: 'LogFormat', page: 'mod/mod_log_config.html', why: 'LogFormat is defined in mod_log_config' },
  { query: 'Require', page: 'mod/mod_authz_core.html', why: 'the Require directive is defined in mod_authz_core' },
  { query: 'SetEnvIf', page: 'mod/mod_setenvif.html', why: 'SetEnvIf is defined in mod_setenvif' },
  { query: 'AddType', page: 'mod/mod_mime.html', why: 'AddType is defined in mod_mime' },
  { query: 'LoadModule', page: 'mod/mod_so.html', why: 'LoadModule is defined in mod_so' },
  {
    query: 'MaxRequestWorkers',
    page: 'mod/mpm_common.html',
    why: 'MaxRequestWorkers is defined among the MPM directives',
  },
  { query: 'SSLCertificateFile', page: 'mod/mod_ssl.html', why: 'SSLCertificateFile is defined in mod_ssl' },
  { query: 'ExpiresByType', page: 'mod/mod_expires.html', why: 'ExpiresByType is defined in mod_expires' },
  {
    query: 'Header set',
    page: 'mod/mod_headers.html',
    why: 'the Header directive (and its set action) is mod_headers',
  },
  { query: 'KeepAliveTimeout', page: 'mod/core.html', why: 'KeepAliveTimeout is a core directive' },
  // Modules and programs by name (underscored and dashed names).
  { query: 'mod_rewrite', page: 'mod/mod_rewrite.html', why: 'the module page titled "mod_rewrite"' },
  { query: 'mod_proxy', page: 'mod/mod_proxy.html', why: 'the module page titled "mod_proxy" (not mod_proxy_http)' },
  { query: 'mod_ssl', page: 'mod/mod_ssl.html', why: 'the module page titled "mod_ssl"' },
  { query: 'mod_deflate', page: 'mod/mod_deflate.html', why: 'the module page titled "mod_deflate"' },
  { query: 'mod_status', page: 'mod/mod_status.html', why: 'the module page titled "mod_status"' },
  { query: 'mod_proxy_balancer', page: 'mod/mod_proxy_balancer.html', why: 'the module page of that name' },
  { query: 'htpasswd', page: 'programs/htpasswd.html', why: 'the program page "htpasswd - Manage user files…"' },
  { query: 'rotatelogs', page: 'programs/rotatelogs.html', why: 'the program page of rotatelogs' },
  { query: 'apachectl', page: 'programs/apachectl.html', why: 'the page of the control script (apachectl.html)' },
  { query: 'htcacheclean', page: 'programs/htcacheclean.html', why: 'the program page of htcacheclean' },
  { query: 'apxs', page: 'programs/apxs.html', why: 'the program page "apxs - APache eXtenSion tool"' },
  {
    query: 'ab benchmarking tool',
    page: 'programs/ab.html',
    why: 'the page titled "ab - Apache HTTP server benchmarking tool"',
  },
  {
    query: 'split-logfile',
    page: 'programs/split-logfile.html',
    why: 'the program page of split-logfile (dashed name)',
  },
  // Multiprocessing modules.
  { query: 'prefork', page: 'mod/prefork.html', why: 'the MPM page titled "prefork"' },
  { query: 'event mpm', page: 'mod/event.html', why: 'the MPM page titled "event"' },
  // Guides, by the phrase that names them.
  { query: 'caching guide', page: 'caching.html', why: 'the page titled "Caching Guide"' },
  { query: 'reverse proxy guide', page: 'howto/reverse_proxy.html', why: 'the page titled "Reverse Proxy Guide"' },
  { query: 'reverse proxy', page: 'howto/reverse_proxy.html', why: 'the guide to setting up a reverse proxy' },
  { query: 'htaccess files', page: 'howto/htaccess.html', why: 'the tutorial titled ".htaccess files"' },
  { query: '.htaccess', page: 'howto/htaccess.html', why: 'the tutorial on .htaccess files (dotted token)' },
  { query: 'http/2', page: 'howto/http2.html', why: 'the page titled "HTTP/2 guide"' },
  { query: 'server side includes', page: 'howto/ssi.html', why: 'the tutorial "Introduction to Server Side Includes"' },
  { query: 'dynamic content with cgi', page: 'howto/cgi.html', why: 'the tutorial "Dynamic Content with CGI"' },
  { query: 'authentication and authorization', page: 'howto/auth.html', why: 'the page of that title' },
  { query: 'access control', page: 'howto/access.html', why: 'the page titled "Access Control"' },
  { query: 'per-user web directories', page: 'howto/public_html.html', why: 'the page of that title (dashed word)' },
  { query: 'performance tuning', page: 'misc/perf-tuning.html', why: 'the page titled "Apache Performance Tuning"' },
  { query: 'security tips', page: 'misc/security_tips.html', why: 'the page titled "Security Tips"' },
  { query: 'log files', page: 'logs.html', why: 'the page titled "Log Files"' },
  { query: 'content negotiation', page: 'content-negotiation.html', why: 'the page titled "Content Negotiation"' },
  { query: 'custom error responses', page: 'custom-error.html', why: 'the page titled "Custom Error Responses"' },
  { query: 'environment variables', page: 'env.html', why: 'the page titled "Environment Variables in Apache httpd"' },
  { query: 'configuration sections', page: 'sections.html', why: 'the page titled "Configuration Sections"' },
  { query: 'mapping urls to filesystem locations', page: 'urlmapping.html', why: 'the page of that title' },
  {
    query: 'stopping and restarting',
    page: 'stopping.html',
    why: 'the page "Stopping and Restarting Apache HTTP Server"',
  },
  {
    query: 'graceful restart',
    page: 'stopping.html',
    why: 'the graceful restart is explained in "Stopping and Restarting"',
  },
  { query: 'dynamic shared object', page: 'dso.html', why: 'the page titled "Dynamic Shared Object (DSO) Support"' },
  { query: 'expressions', page: 'expr.html', why: 'the page titled "Expressions in Apache HTTP Server"' },
  { query: 'multi-processing modules', page: 'mpm.html', why: 'the page titled "Multi-Processing Modules (MPMs)"' },
  { query: 'virtual host examples', page: 'vhosts/examples.html', why: 'the page titled "VirtualHost Examples"' },
  {
    query: 'name-based virtual hosts',
    page: 'vhosts/name-based.html',
    why: 'the page "Name-based Virtual Host Support"',
  },
  {
    query: 'ip-based virtual host',
    page: 'vhosts/ip-based.html',
    why: 'the page "Apache IP-based Virtual Host Support"',
  },
  {
    query: 'mass virtual hosting',
    page: 'vhosts/mass.html',
    why: 'the page "Dynamically Configured Mass Virtual Hosting"',
  },
  { query: 'file descriptor limits', page: 'vhosts/fd-limits.html', why: 'the page titled "File Descriptor Limits"' },
  { query: 'rewriterule flags', page: 'rewrite/flags.html', why: 'the page titled "RewriteRule Flags"' },
  { query: 'when not to use mod_rewrite', page: 'rewrite/avoid.html', why: 'the page of that title' },
  { query: 'ssl how-to', page: 'ssl/ssl_howto.html', why: 'the page titled "SSL/TLS Strong Encryption: How-To"' },
  { query: 'ssl faq', page: 'ssl/ssl_faq.html', why: 'the page titled "SSL/TLS Strong Encryption: FAQ"' },
  {
    query: 'shared object cache',
    page: 'socache.html',
    why: 'the page titled "Shared Object Cache in Apache HTTP Server"',
  },
  {
    query: 'dns caveats',
    page: 'dns-caveats.html',
    why: 'the page "Issues Regarding DNS and Apache HTTP Server" (dns-caveats)',
  },
  { query: 'getting started', page: 'getting-started.html', why: 'the page titled "Getting Started"' },
  { query: 'password formats', page: 'misc/password_encryptions.html', why: 'the page titled "Password Formats"' },
  { query: 'directive index', page: 'mod/directives.html', why: 'the page titled "Directive Index"' },
  {
    query: 'apache on windows',
    page: 'platform/windows.html',
    why: 'the page "Using Apache HTTP Server on Microsoft Windows"',
  },
  // Titles with version numbers.
  {
    query: 'upgrading to 2.4 from 2.2',
    page: 'upgrading.html',
    why: 'the upgrade notes (Debian ships this page in Portuguese)',
  },
  {
    query: 'new features in 2.2',
    page: 'new_features_2_2.html',
    why: 'the page "Overview of new features in Apache HTTP Server 2.2"',
  },
  {
    query: 'new features apache 2.0',
    page: 'new_features_2_0.html',
    why: 'the page "Overview of new features in Apache HTTP Server 2.0"',
  },
  {
    query: 'api changes in 2.4 since 2.2',
    page: 'developer/new_api_2_4.html',
    why: 'the page "API Changes in Apache HTTP Server 2.4 since 2.2"',
  },
  { query: 'apache 1.3 api notes', page: 'developer/API.html', why: 'the page titled "Apache 1.3 API notes"' },
  // Developer pages.
  {
    query: 'hook functions',
    page: 'developer/hooks.html',
    why: 'the page "Hook Functions in the Apache HTTP Server 2.x"',
  },
  {
    query: 'developing modules',
    page: 'developer/modguide.html',
    why: 'the page "Developing modules for the Apache HTTP Server 2.4"',
  },
  {
    query: 'writing output filters',
    page: 'developer/output-filters.html',
    why: 'the page "Guide to writing output filters"',
  },
  // Everyday tasks, in the words a person uses (the module or guide that does it).
  {
    query: 'password protect a directory',
    page: 'howto/auth.html',
    why: 'the authentication how-to shows exactly that',
  },
  { query: 'gzip compression', page: 'mod/mod_deflate.html', why: 'mod_deflate compresses responses with gzip' },
  { query: 'load balancer', page: 'mod/mod_proxy_balancer.html', why: 'mod_proxy_balancer is the load balancer' },
  { query: 'directory listing', page: 'mod/mod_autoindex.html', why: 'mod_autoindex generates directory listings' },
  {
    query: 'x-forwarded-for',
    page: 'mod/mod_remoteip.html',
    why: 'mod_remoteip takes the client address from that header',
  },
  {
    query: 'request timeout',
    page: 'mod/mod_reqtimeout.html',
    why: 'mod_reqtimeout sets timeouts for receiving requests',
  },
  {
    query: 'websocket proxy',
    page: 'mod/mod_proxy_wstunnel.html',
    why: 'mod_proxy_wstunnel proxies WebSocket connections',
  },
  {
    query: 'digest authentication',
    page: 'mod/mod_auth_digest.html',
    why: 'mod_auth_digest: "User authentication using MD5 Digest"',
  },
];

export const APACHE: Corpus = {
  name: 'Apache HTTP Server 2.4 manual',
  role: 'measured',
  root: '/usr/share/doc/apache2-doc/manual/en',
  debianPackage: 'apache2-doc',
  pages: (path) => path.endsWith('.html'),
  items,
};
