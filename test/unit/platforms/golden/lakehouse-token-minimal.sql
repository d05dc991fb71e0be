-- ===== create =====
-- Lakehouse setup

-- Run as the service principal the token belongs to (a metastore admin or a user with CREATE CATALOG).
CREATE CATALOG `service` COMMENT 'Internal data of the access-policy service';
REVOKE ALL PRIVILEGES ON CATALOG `service` FROM `account users`;
CREATE SCHEMA `service`.`metadata`;

-- ===== delete =====
-- Lakehouse removal

-- Run as the catalog owner or a metastore admin.
DROP CATALOG `service` CASCADE;
